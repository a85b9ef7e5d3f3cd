import LadderImaging

/// Sources made in code where resampling, colour conversion, chroma subsampling and decoders
/// usually go wrong, for holding ladder's own checks to what a correct build produces (as
/// scripts/hardset.py does for the benchmark): saturated pixel-pitch patterns, text, noise,
/// gradients, flat art, tiny and extreme sizes, transparency, CMYK, 16 bits, palettes, grayscale
/// and every EXIF orientation. Deterministic (fixed seeds). Small enough for a 2-core CI, except
/// `huge`, whose size is the point.
enum AdversarialImages {
    /// The set, as file names and bytes.
    static func all() throws -> [(name: String, bytes: [UInt8])] {
        var files: [(String, [UInt8])] = []
        func add(_ name: String, _ image: Image, _ suffix: String) throws {
            files.append((name, try image.encoded(as: suffix)))
        }
        let red: [UInt8] = [255, 0, 0]
        let green: [UInt8] = [0, 255, 0]
        let yellow: [UInt8] = [255, 255, 0]
        let magenta: [UInt8] = [255, 0, 255]
        let saturated: [[UInt8]] = [
            red, green, [0, 0, 255], yellow, magenta, [0, 255, 255], [255, 128, 0], [128, 0, 255],
        ]
        // Checkerboards and grids of saturated colours at pixel pitches a thumbnail aliases: what
        // made averageColor miss the thumbnail's mean by up to 20 levels when it came from the
        // picture before encoding (a 4096-pixel "pixel grid" wallpaper did it first).
        try add(
            "checker-red-yellow-16px.webp", rgb(1600, 1600) { x, y in (x / 16 + y / 16) % 2 == 0 ? red : yellow },
            ".webp[lossless]")
        try add(
            "checker-red-green-25px.png", rgb(1600, 1600) { x, y in (x / 25 + y / 25) % 2 == 0 ? red : green },
            ".png")
        try add("checker-magenta-green-1px.png", rgb(800, 600) { x, y in (x + y) % 2 == 0 ? magenta : green }, ".png")
        for pitch in [2, 4, 13] {
            let cells = Random(seed: UInt64(pitch))
            let colours = (0..<((1024 / pitch + 1) * (1024 / pitch + 1))).map { _ in saturated[cells.next(8)] }
            try add(
                "grid-saturated-\(pitch)px.webp",
                rgb(1024, 1024) { x, y in
                    colours[(y / pitch) * (1024 / pitch + 1) + x / pitch]
                }, ".webp[lossless]")
        }
        try add(
            "lines-1px-colour.png",
            rgb(900, 700) { x, y in
                y % 5 == 0 ? red : x % 7 == 0 ? [0, 0, 255] : [235, 235, 235]
            }, ".png")

        // Text, black on white and coloured on a tint.
        let text = BitmapText.render(["LADDER VERIFY 0123456789", "THE QUICK BROWN FOX JUMPS OVER"], scale: 2)
        try add(
            "text-black.png",
            rgb(text.width, text.height) { x, y in
                text.ink(x, y) ? [0, 0, 0] : [255, 255, 255]
            }, ".png")
        try add(
            "text-colour.jpg",
            rgb(text.width, text.height) { x, y in
                text.ink(x, y) ? [200, 30, 90] : [40, 170, 120]
            }, ".jpg[Q=90]")

        // Noise: every resampler's worst case.
        let noise = Random(seed: 7)
        try add("noise-rgb.png", rgb(640, 480) { _, _ in [noise.byte(), noise.byte(), noise.byte()] }, ".png")
        try add("noise-grey.jpg", grey(640, 480) { _, _ in noise.byte() }, ".jpg[Q=95]")

        // 8-bit gradients that band when anything rounds twice.
        try add("gradient-ramp.png", grey(1024, 128) { x, _ in UInt8(x * 255 / 1023) }, ".png")
        try add(
            "gradient-dark.png",
            rgb(800, 600) { x, _ in
                let level = UInt8(x * 24 / 799)
                return [level, level + 2, level + 4]
            }, ".png")
        try add(
            "gradient-radial.jpg",
            rgb(1000, 1000) { x, y in
                let r = min(1, Double((x - 500) * (x - 500) + (y - 500) * (y - 500)).squareRoot() / 707)
                return [UInt8(r * 255), UInt8((1 - r) * 200 + 30), UInt8(r * 120 + 60)]
            }, ".jpg[Q=92]")

        // Flat art: few colours, hard edges.
        try add("flat-art.png", flatArt(side: 1200), ".png")
        try add("flat-art.gif", flatArt(side: 400), ".gif")

        // Tiny and extreme sizes: headers are most of such a file, and a side of 1 pixel has
        // no neighbours to filter with.
        let photo = Random(seed: 11)
        for (width, height, suffix) in [
            (1, 1, ".png"), (2, 3, ".jpg[Q=92]"), (17, 9, ".png"), (160, 160, ".jpg[Q=90]"),
            (161, 159, ".jpg[Q=90]"),
        ] {
            let name = "tiny-\(width)x\(height).\(suffix.hasPrefix(".png") ? "png" : "jpg")"
            try add(
                name,
                rgb(width, height) { x, y in
                    [UInt8((x * 37 + photo.next(40)) % 256), UInt8((y * 53) % 256), UInt8((x + y) * 11 % 256)]
                }, suffix)
        }
        try add("panorama-3000x1.png", rgb(3000, 1) { x, _ in saturated[(x / 7) % 8] }, ".png")
        try add("panorama-1x2000.png", rgb(1, 2000) { _, y in saturated[(y / 5) % 8] }, ".png")
        try add(
            "panorama-12000x40.jpg",
            rgb(12000, 40) { x, y in
                [UInt8(x * 255 / 11999), UInt8((x / 3 + y * 6) % 256), UInt8(255 - x * 200 / 11999)]
            }, ".jpg[Q=90]")

        // Transparency: used, half used, and an alpha channel every pixel of which is opaque.
        try add(
            "alpha-rgba.png",
            rgba(600, 400) { x, y in
                let alpha: UInt8 = x >= 400 ? 0 : x >= 200 ? UInt8((x - 200) * 255 / 199) : 255
                return [
                    UInt8(x * 255 / 599), UInt8(y * 255 / 399), 128,
                    (x - 100) * (x - 100) + (y - 200) * (y - 200) < 60 * 60 ? 128 : alpha,
                ]
            }, ".png")
        try add(
            "alpha-grey.png",
            try Image(
                pixels: (0..<(300 * 200)).flatMap { index -> [UInt8] in
                    let (x, y) = (index % 300, index / 300)
                    return [UInt8((x + y) % 256), x < 150 ? 255 : UInt8(y)]
                }, width: 300, height: 200, bands: 2, space: .grayscale), ".png")
        try add(
            "alpha-opaque.png", rgba(320, 240) { x, y in [UInt8(x * 255 / 319), 90, UInt8(y * 255 / 239), 255] },
            ".png")
        try add(
            "alpha-lossless.webp",
            rgba(500, 300) { x, y in
                [saturated[(x / 9 + y / 9) % 8][0], UInt8(y * 255 / 299), 60, x < 250 ? 255 : 0]
            }, ".webp[lossless]")
        try add(
            "alpha-palette.gif",
            rgba(200, 150) { x, y in y > 60 && y < 90 ? [255, 0, 255, 0] : saturated[(x / 25) % 8] + [255] },
            ".gif")

        // CMYK with and without its profile, 16 bits, a palette, grayscale.
        try add("cmyk-profile.jpg", try Image(decoding: TestImages.cmykJPEG(width: 400, height: 300)), ".jpg[Q=92]")
        try add(
            "cmyk-no-profile.jpg", try Image(decoding: TestImages.cmykJPEG(width: 400, height: 300)),
            ".jpg[Q=92,strip]")
        try add(
            "rgb16.png",
            try rgb(500, 400) { x, y in [UInt8(x * 255 / 499), UInt8(y * 255 / 399), 200] }
                .converted(to: .rgb16), ".png")
        try add("grey16.png", try grey(500, 400) { x, y in UInt8((x + y) * 255 / 898) }.converted(to: .grey16), ".png")
        try add("palette.png", rgb(600, 450) { x, y in saturated[(x / 30 + y / 45) % 8] }, ".png[palette]")
        try add("grayscale.jpg", grey(700, 500) { x, y in UInt8((x * 3 + y * 5) % 256) }, ".jpg[Q=90]")

        // Every EXIF orientation of one non-square picture.
        for orientation in 1...8 {
            files.append(
                (
                    "orientation-\(orientation).jpg",
                    try TestImages.orientedQuadrantJPEG(width: 300, height: 200, orientation: orientation)
                ))
        }
        return files
    }

    /// A picture whose size is the point: 6000 x 4000 (24 megapixels), a smooth gradient that
    /// compresses well and decodes fast with shrink-on-load.
    static func huge() throws -> [UInt8] {
        try rgb(6000, 4000) { x, y in [UInt8(x * 255 / 5999), UInt8(y * 255 / 3999), UInt8((x + y) % 256)] }
            .encoded(as: ".jpg[Q=85]")
    }

    /// A logo-like picture of `side` x `side`: a red disc, a blue diamond and a black bar on cream.
    static func flatArt(side: Int) -> Image {
        rgb(side, side) { x, y in
            let (dx, dy) = ((x - side * 3 / 8) * 1200 / side, (y - side * 3 / 8) * 1200 / side)
            if dx * dx + dy * dy < 310 * 310 { return [210, 30, 45] }
            if abs(x - side * 5 / 8) + abs(y - side * 5 / 8) < side * 13 / 60 { return [20, 60, 160] }
            if y > side * 13 / 16, y < side * 41 / 48, x > side / 8, x < side * 7 / 8 { return [15, 15, 15] }
            return [250, 246, 235]
        }
    }

    // MARK: - Pictures from functions

    static func rgb(_ width: Int, _ height: Int, _ color: (Int, Int) -> [UInt8]) -> Image {
        picture(width, height, bands: 3, space: .sRGB, color)
    }

    static func rgba(_ width: Int, _ height: Int, _ color: (Int, Int) -> [UInt8]) -> Image {
        picture(width, height, bands: 4, space: .sRGB, color)
    }

    static func grey(_ width: Int, _ height: Int, _ level: (Int, Int) -> UInt8) -> Image {
        picture(width, height, bands: 1, space: .grayscale) { x, y in [level(x, y)] }
    }

    static func picture(
        _ width: Int, _ height: Int, bands: Int, space: Image.ColorSpace, _ color: (Int, Int) -> [UInt8]
    ) -> Image {
        var pixels = [UInt8](repeating: 0, count: width * height * bands)
        for y in 0..<height {
            for x in 0..<width {
                let sample = color(x, y)
                for band in 0..<bands { pixels[(y * width + x) * bands + band] = sample[band] }
            }
        }
        return try! Image(pixels: pixels, width: width, height: height, bands: bands, space: space)
    }

    /// xorshift64*: the same numbers on every platform.
    final class Random {
        private var state: UInt64
        init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 | 1 }
        func next(_ bound: Int) -> Int {
            state ^= state >> 12
            state ^= state << 25
            state ^= state >> 27
            return Int((state &* 0x2545_F491_4F6C_DD1D) >> 33) % bound
        }
        func byte() -> UInt8 { UInt8(next(256)) }
    }
}

/// Capital letters, digits and spaces in a 5 x 7 bitmap font, for text in test pictures.
enum BitmapText {
    static let glyphs: [Character: [String]] = [
        "A": [".###.", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"],
        "B": ["####.", "#...#", "#...#", "####.", "#...#", "#...#", "####."],
        "C": [".####", "#....", "#....", "#....", "#....", "#....", ".####"],
        "D": ["####.", "#...#", "#...#", "#...#", "#...#", "#...#", "####."],
        "E": ["#####", "#....", "#....", "####.", "#....", "#....", "#####"],
        "F": ["#####", "#....", "#....", "####.", "#....", "#....", "#...."],
        "H": ["#...#", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"],
        "I": ["#####", "..#..", "..#..", "..#..", "..#..", "..#..", "#####"],
        "J": ["..###", "...#.", "...#.", "...#.", "...#.", "#..#.", ".##.."],
        "K": ["#...#", "#..#.", "#.#..", "##...", "#.#..", "#..#.", "#...#"],
        "L": ["#....", "#....", "#....", "#....", "#....", "#....", "#####"],
        "M": ["#...#", "##.##", "#.#.#", "#.#.#", "#...#", "#...#", "#...#"],
        "N": ["#...#", "##..#", "#.#.#", "#..##", "#...#", "#...#", "#...#"],
        "O": [".###.", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."],
        "P": ["####.", "#...#", "#...#", "####.", "#....", "#....", "#...."],
        "Q": [".###.", "#...#", "#...#", "#...#", "#.#.#", "#..#.", ".##.#"],
        "R": ["####.", "#...#", "#...#", "####.", "#.#..", "#..#.", "#...#"],
        "S": [".####", "#....", "#....", ".###.", "....#", "....#", "####."],
        "T": ["#####", "..#..", "..#..", "..#..", "..#..", "..#..", "..#.."],
        "U": ["#...#", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."],
        "V": ["#...#", "#...#", "#...#", "#...#", "#...#", ".#.#.", "..#.."],
        "W": ["#...#", "#...#", "#...#", "#.#.#", "#.#.#", "##.##", "#...#"],
        "X": ["#...#", "#...#", ".#.#.", "..#..", ".#.#.", "#...#", "#...#"],
        "Y": ["#...#", "#...#", ".#.#.", "..#..", "..#..", "..#..", "..#.."],
        "Z": ["#####", "....#", "...#.", "..#..", ".#...", "#....", "#####"],
        "0": [".###.", "#...#", "#..##", "#.#.#", "##..#", "#...#", ".###."],
        "1": ["..#..", ".##..", "..#..", "..#..", "..#..", "..#..", ".###."],
        "2": [".###.", "#...#", "....#", "...#.", "..#..", ".#...", "#####"],
        "3": ["####.", "....#", "....#", ".###.", "....#", "....#", "####."],
        "4": ["...#.", "..##.", ".#.#.", "#..#.", "#####", "...#.", "...#."],
        "5": ["#####", "#....", "####.", "....#", "....#", "#...#", ".###."],
        "6": [".###.", "#....", "#....", "####.", "#...#", "#...#", ".###."],
        "7": ["#####", "....#", "...#.", "..#..", ".#...", ".#...", ".#..."],
        "8": [".###.", "#...#", "#...#", ".###.", "#...#", "#...#", ".###."],
        "9": [".###.", "#...#", "#...#", ".####", "....#", "....#", ".###."],
    ]

    /// Lines of text drawn `scale` pixels per font pixel, with a margin: where the ink is.
    static func render(_ lines: [String], scale: Int) -> (width: Int, height: Int, ink: (Int, Int) -> Bool) {
        let advance = 6 * scale
        let lineHeight = 10 * scale
        let margin = 4 * scale
        let width = 2 * margin + (lines.map(\.count).max() ?? 0) * advance
        let height = 2 * margin + lines.count * lineHeight
        let rows = lines.map(Array.init)
        return (
            width, height,
            { x, y in
                let (column, row) = (x - margin, y - margin)
                guard column >= 0, row >= 0, row / lineHeight < rows.count else { return false }
                let line = rows[row / lineHeight]
                guard column / advance < line.count, let glyph = glyphs[line[column / advance]] else { return false }
                let (gx, gy) = ((column % advance) / scale, (row % lineHeight) / scale)
                guard gx < 5, gy < 7 else { return false }
                return Array(glyph[gy])[gx] == "#"
            }
        )
    }
}
