import LadderImaging

/// Pictures with the traits that decide which scan script shows an image best, generated in
/// code: camera noise, smooth gradients, flat artwork, text on a colored ground.
enum ProgressiveSubjects {
    /// A deterministic pseudo-random generator (64-bit LCG), so that images are the same every run.
    struct Random {
        var state: UInt64
        mutating func next(_ range: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(range))
        }
    }

    static func image(width: Int, height: Int, _ color: (Int, Int, inout Random) -> (Int, Int, Int)) throws -> Image {
        var random = Random(state: UInt64(width * 31 + height))
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let (r, g, b) = color(x, y, &random)
                let offset = (y * width + x) * 3
                pixels[offset] = UInt8(clamping: r)
                pixels[offset + 1] = UInt8(clamping: g)
                pixels[offset + 2] = UInt8(clamping: b)
            }
        }
        // libvips starts itself on first use when nothing started it, and a test that makes a
        // picture then races another suite's start: start it first, once.
        TestImages.start()
        return try Image(pixels: pixels, width: width, height: height, bands: 3, space: .sRGB)
    }

    /// A scene under heavy sensor noise, like a small camera's photo in dim light: most of the
    /// file is high-frequency luma detail.
    static func noisyPhoto(width: Int = 960, height: Int = 720) throws -> Image {
        try image(width: width, height: height) { x, y, random in
            let base = 60 + 120 * x / width + 40 * ((x / 97 + y / 71) % 2)
            let noise = random.next(90) - 45
            return (base + noise, base - 20 + y * 60 / height + noise, 180 - base / 2 + noise / 2)
        }
    }

    /// A smooth two-way gradient, as in a render's sky: most of the file is DC.
    static func smoothGradient(width: Int = 960, height: Int = 720) throws -> Image {
        try image(width: width, height: height) { x, y, _ in
            (30 + 200 * x / width, 60 + 150 * y / height, 220 - 120 * (x + y) / (width + height))
        }
    }

    /// Flat artwork: a few shapes in flat colors.
    static func flatArt(width: Int = 960, height: Int = 720) throws -> Image {
        try image(width: width, height: height) { x, y, _ in
            let dx = x - width / 3
            let dy = y - height / 2
            if dx * dx + dy * dy < (height / 4) * (height / 4) { return (230, 80, 40) }
            if x > width / 2 && y > height / 5 && y < height * 4 / 5 { return (40, 90, 200) }
            return y < height / 8 ? (250, 220, 60) : (245, 240, 230)
        }
    }

    /// Lines of dark "text" (strokes in a glyph-like grid) on a colored ground.
    static func textOnColor(width: Int = 960, height: Int = 720) throws -> Image {
        try image(width: width, height: height) { x, y, _ in
            let line = y / 24
            let inLine = y % 24
            let glyph = x / 12
            let inGlyph = x % 12
            let seed = (line * 131 + glyph * 17) % 23
            let stroke =
                inLine >= 5 && inLine < 19 && seed > 3
                && (inGlyph == 2 || inGlyph == 3 || (seed % 3 == 0 && inLine % 7 < 2)
                    || (seed % 5 == 1 && inGlyph == 8))
            return stroke ? (20, 20, 30) : (40 + 100 * x / width, 120, 170 - 60 * y / height)
        }
    }

    /// The renders the scan-script targets are checked on, by name.
    static func renders() throws -> [(String, Image)] {
        [
            ("gradient", try smoothGradient()),
            ("flat-art", try flatArt()),
            ("text-on-color", try textOnColor()),
            ("gradient-wide", try smoothGradient(width: 1600, height: 600)),
            ("flat-art-small", try flatArt(width: 480, height: 360)),
            ("text-on-color-tall", try textOnColor(width: 600, height: 900)),
        ]
    }
}
