import LadderImaging

/// Images made in code for tests, with known content.
enum TestImages {
    /// The four colors of `quadrants`, top-left, top-right, bottom-left, bottom-right.
    static let quadrantColors: [[UInt8]] = [[230, 20, 20], [20, 200, 20], [20, 20, 230], [240, 230, 20]]

    /// Quadrant colors inside every common gamut, CMYK printing included, so that round trips
    /// through CMYK reproduce them closely.
    static let mutedQuadrantColors: [[UInt8]] = [
        [190, 90, 70], [100, 150, 100], [80, 100, 170], [210, 200, 110],
    ]

    /// Starts libvips once for the test process.
    static func start() {
        try! Imaging.start(threadsPerImage: 1)
    }

    /// An upright image whose four quadrants have the four `quadrantColors`.
    static func quadrants(
        width: Int, height: Int, colors: [[UInt8]] = quadrantColors
    ) -> (pixels: [UInt8], width: Int, height: Int) {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let quadrant = (y < height / 2 ? 0 : 2) + (x < width / 2 ? 0 : 1)
                let offset = (y * width + x) * 3
                pixels[offset..<(offset + 3)] = colors[quadrant][...]
            }
        }
        return (pixels, width, height)
    }

    /// Where the EXIF orientation `orientation` sends a stored pixel, in display coordinates.
    static func displayPoint(x: Int, y: Int, storedWidth: Int, storedHeight: Int, orientation: Int) -> (Int, Int) {
        switch orientation {
        case 2: (storedWidth - 1 - x, y)
        case 3: (storedWidth - 1 - x, storedHeight - 1 - y)
        case 4: (x, storedHeight - 1 - y)
        case 5: (y, x)
        case 6: (storedHeight - 1 - y, x)
        case 7: (storedHeight - 1 - y, storedWidth - 1 - x)
        case 8: (y, storedWidth - 1 - x)
        default: (x, y)
        }
    }

    /// A JPEG that a viewer honouring EXIF orientation `orientation` shows as the upright
    /// quadrant image of `width` x `height`: the stored pixels are turned the other way.
    static func orientedQuadrantJPEG(
        width: Int, height: Int, orientation: Int, quality: Int = 95
    ) throws -> [UInt8] {
        let upright = quadrants(width: width, height: height)
        let swaps = orientation >= 5
        let storedWidth = swaps ? height : width
        let storedHeight = swaps ? width : height
        var stored = [UInt8](repeating: 0, count: storedWidth * storedHeight * 3)
        for y in 0..<storedHeight {
            for x in 0..<storedWidth {
                let (dx, dy) = displayPoint(
                    x: x, y: y, storedWidth: storedWidth, storedHeight: storedHeight, orientation: orientation)
                let from = (dy * width + dx) * 3
                let to = (y * storedWidth + x) * 3
                stored[to..<(to + 3)] = upright.pixels[from..<(from + 3)]
            }
        }
        let image = try Image(pixels: stored, width: storedWidth, height: storedHeight, bands: 3, space: .sRGB)
            .withMetadata(integers: ["orientation": orientation])
        return try image.encoded(as: ".jpg[Q=\(quality)]")
    }

    /// A plain quadrant image encoded with a libvips saver suffix (".jpg", ".png", ".webp"...).
    static func quadrantFile(width: Int, height: Int, as suffix: String = ".jpg[Q=90]") throws -> [UInt8] {
        let upright = quadrants(width: width, height: height)
        return try Image(pixels: upright.pixels, width: width, height: height, bands: 3, space: .sRGB).encoded(
            as: suffix)
    }

    /// A smooth color gradient with some detail: a realistic subject for JPEG encoders, unlike
    /// flat colors. `seed` varies the content so that files differ.
    static func gradient(width: Int, height: Int, seed: Int = 0) throws -> Image {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let offset = (y * width + x) * 3
                let wave = (x * 7 + y * 3 + seed * 31) % 64
                pixels[offset] = UInt8((x * 255 / max(1, width - 1) + seed * 17) % 256)
                pixels[offset + 1] = UInt8((y * 255 / max(1, height - 1) + wave) % 256)
                pixels[offset + 2] = UInt8(((x + y) * 127 / max(1, width + height) + seed * 53) % 256)
            }
        }
        return try Image(pixels: pixels, width: width, height: height, bands: 3, space: .sRGB)
    }

    /// A gradient JPEG.
    static func gradientJPEG(width: Int, height: Int, seed: Int = 0, quality: Int = 90) throws -> [UInt8] {
        try gradient(width: width, height: height, seed: seed).encoded(as: ".jpg[Q=\(quality)]")
    }

    /// A JPEG carrying camera-like EXIF: GPS position, artist, copyright, capture date,
    /// orientation, and an EXIF thumbnail (a JPEG inside the EXIF block, with markers of its own).
    static func cameraJPEG(width: Int = 320, height: Int = 240, orientation: Int = 1) throws -> [UInt8] {
        let thumbnail = try quadrantFile(width: 32, height: 24, as: ".jpg[Q=70,strip]")
        let image = try gradient(width: width, height: height).withMetadata(
            strings: [
                "exif-ifd0-Artist": "Ada Lovelace",
                "exif-ifd0-Copyright": "(c) 2026 Ada Lovelace",
                "exif-ifd0-Make": "Acme",
                "exif-ifd0-Model": "Camera 1",
                "exif-ifd2-DateTimeOriginal": "2024:05:17 09:30:12",
                "exif-ifd3-GPSLatitudeRef": "N",
                "exif-ifd3-GPSLatitude": "51/1 30/1 0/1",
                "exif-ifd3-GPSLongitudeRef": "W",
                "exif-ifd3-GPSLongitude": "0/1 7/1 0/1",
            ],
            integers: ["orientation": orientation],
            blobs: ["jpeg-thumbnail-data": thumbnail])
        return try image.encoded(as: ".jpg[Q=90]")
    }

    /// An RGBA PNG: opaque red on the left half, fully transparent on the right half.
    static func halfTransparentPNG(width: Int = 64, height: Int = 48) throws -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let offset = (y * width + x) * 4
                pixels[offset..<(offset + 4)] = x < width / 2 ? [220, 30, 30, 255] : [0, 0, 0, 0]
            }
        }
        return try Image(pixels: pixels, width: width, height: height, bands: 4, space: .sRGB).encoded(as: ".png")
    }

    /// A grayscale JPEG (one component).
    static func grayscaleJPEG(width: Int = 200, height: Int = 150) throws -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height { for x in 0..<width { pixels[y * width + x] = UInt8((x + y) % 256) } }
        return try Image(pixels: pixels, width: width, height: height, bands: 1, space: .grayscale).encoded(
            as: ".jpg[Q=90]")
    }

    /// A 16-bit RGB PNG of the quadrant image.
    static func sixteenBitPNG(width: Int = 64, height: Int = 48) throws -> [UInt8] {
        let upright = quadrants(width: width, height: height)
        return try Image(pixels: upright.pixels, width: width, height: height, bands: 3, space: .sRGB)
            .converted(to: .rgb16).encoded(as: ".png")
    }

    /// The muted quadrant image converted to CMYK with libvips' built-in CMYK profile, as a CMYK
    /// JPEG that embeds that profile.
    static func cmykJPEG(width: Int = 64, height: Int = 48) throws -> [UInt8] {
        let upright = quadrants(width: width, height: height, colors: mutedQuadrantColors)
        return try Image(pixels: upright.pixels, width: width, height: height, bands: 3, space: .sRGB)
            .transformed(toProfile: "cmyk", from: "srgb").encoded(as: ".jpg[Q=95]")
    }

    /// The quadrant image converted to Display P3 and tagged with the P3 profile.
    static func displayP3JPEG(width: Int = 64, height: Int = 48) throws -> [UInt8] {
        let upright = quadrants(width: width, height: height)
        return try Image(pixels: upright.pixels, width: width, height: height, bands: 3, space: .sRGB)
            .transformed(toProfile: "p3", from: "srgb").encoded(as: ".jpg[Q=95]")
    }

    /// An animated GIF whose first frame is red and second frame blue.
    static func animatedGIF(width: Int = 40, height: Int = 30) throws -> [UInt8] {
        func frame(_ color: [UInt8]) throws -> Image {
            try Image(
                pixels: Array([[UInt8]](repeating: color, count: width * height).joined()), width: width,
                height: height,
                bands: 3, space: .sRGB)
        }
        return try Image.animation(frames: [frame([220, 20, 20]), frame([20, 20, 220])]).encoded(as: ".gif")
    }
}

// MARK: - Hostile files

extension TestImages {
    /// A PNG whose header declares `width` x `height` but whose data is a few bytes: a pixel bomb
    /// that is cheap to make. Decoders refuse it once they try to read rows; the header alone
    /// is valid, CRCs included.
    static func pngHeaderOnly(width: Int, height: Int) -> [UInt8] {
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let body = Array(type.utf8) + data
            return bigEndian(UInt32(data.count)) + body + bigEndian(crc32(body))
        }
        let header = bigEndian(UInt32(width)) + bigEndian(UInt32(height)) + [8, 2, 0, 0, 0]
        // A zlib stream of one stored, empty block.
        let data: [UInt8] = [0x78, 0x01, 0x01, 0x00, 0x00, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x01]
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header) + chunk("IDAT", data)
            + chunk("IEND", [])
    }

    /// A small JPEG whose frame header is rewritten to declare `width` x `height`.
    static func jpegDeclaring(width: Int, height: Int) throws -> [UInt8] {
        var jpeg = try gradientJPEG(width: 64, height: 64)
        var index = 2
        while index + 9 < jpeg.count {
            let marker = jpeg[index + 1]
            let length = Int(jpeg[index + 2]) << 8 | Int(jpeg[index + 3])
            if marker == 0xC0 || marker == 0xC2 {
                jpeg[index + 5] = UInt8(height >> 8)
                jpeg[index + 6] = UInt8(height & 0xFF)
                jpeg[index + 7] = UInt8(width >> 8)
                jpeg[index + 8] = UInt8(width & 0xFF)
                break
            }
            index += 2 + length
        }
        return jpeg
    }

    /// A progressive JPEG of a flat grey square whose last scan (a few bytes: one run of empty
    /// blocks) is repeated until the file has `scans` scans. libjpeg decodes every one of them,
    /// visiting every block each time: a small file that costs minutes of CPU when large enough.
    static func scanBombJPEG(scans: Int, side: Int = 256) throws -> [UInt8] {
        let script = [
            JPEGScan(components: [0], ss: 0, se: 0, ah: 0, al: 0),
            JPEGScan(components: [0], ss: 1, se: 63, ah: 0, al: 1),
            JPEGScan(components: [0], ss: 1, se: 63, ah: 1, al: 0),
        ]
        let pixels = [UInt8](repeating: 128, count: side * side)
        let image = try Image(pixels: pixels, width: side, height: side, bands: 1, space: .grayscale)

        let jpeg = try image.jpegEncoded(JPEGEncoding(quality: 90, fullChroma: true, scans: script))
        // The last scan runs from its DHT (or SOS) marker to the EOI marker.
        var lastScanStart = 0
        var index = 2
        while index + 4 < jpeg.count {
            let marker = jpeg[index + 1]
            if marker == 0xC4 || marker == 0xDA { if marker == 0xC4 || lastScanStart == 0 { lastScanStart = index } }
            if marker == 0xDA {
                var end = index + 2 + (Int(jpeg[index + 2]) << 8 | Int(jpeg[index + 3]))
                while end + 1 < jpeg.count,
                    !(jpeg[end] == 0xFF && jpeg[end + 1] != 0 && !(0xD0...0xD7).contains(jpeg[end + 1]))
                {
                    end += 1
                }
                if jpeg[end + 1] == 0xD9 {
                    let lastScan = Array(jpeg[lastScanStart..<end])
                    var bomb = Array(jpeg[..<end])
                    for _ in 0..<(scans - script.count) { bomb += lastScan }
                    return bomb + [0xFF, 0xD9]
                }
                lastScanStart = 0
                index = end
                continue
            }
            index += 2 + (Int(jpeg[index + 2]) << 8 | Int(jpeg[index + 3]))
        }
        return jpeg
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    /// CRC-32 as PNG chunks use it (for crafting test files only).
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return crc ^ 0xFFFF_FFFF
    }
}
