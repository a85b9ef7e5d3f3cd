internal import CLadderJPEG
import Foundation

/// One scan of a progressive JPEG: which components it carries, the band of DCT coefficients
/// (`ss`...`se`), and the successive-approximation bits (`ah`, `al`), as in libjpeg's
/// `jpeg_scan_info` and jpegtran's `-scans` files.
package struct JPEGScan: Hashable, Sendable, Codable, CustomStringConvertible {
    package var components: [Int]
    package var ss: Int
    package var se: Int
    package var ah: Int
    package var al: Int

    package init(components: [Int], ss: Int, se: Int, ah: Int, al: Int) {
        self.components = components
        self.ss = ss
        self.se = se
        self.ah = ah
        self.al = al
    }

    /// jpegtran notation: "0,1,2: 0-0, 0, 0".
    package var description: String {
        var text: [UInt8] = []
        appendDescription(to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// Appends `description`'s UTF-8 to `text`: verify compares every progressive file's script
    /// with the manifest's text, and interpolation would cost more than the rest of that check.
    package func appendDescription(to text: inout [UInt8]) {
        func number(_ value: Int) {
            if value < 0 || value > 99 {
                text += String(value).utf8
                return
            }
            if value > 9 { text.append(UInt8(ascii: "0") + UInt8(value / 10)) }
            text.append(UInt8(ascii: "0") + UInt8(value % 10))
        }
        for (index, component) in components.enumerated() {
            if index > 0 { text.append(UInt8(ascii: ",")) }
            number(component)
        }
        text += ": ".utf8
        number(ss)
        text.append(UInt8(ascii: "-"))
        number(se)
        text += ", ".utf8
        number(ah)
        text += ", ".utf8
        number(al)
    }
}

extension JPEGScan {
    /// The scan as the C shim passes it to libjpeg.
    var libjpegScan: ladder_jpeg_scan {
        var indices: (Int32, Int32, Int32, Int32) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &indices) { raw in
            for (index, component) in components.prefix(4).enumerated() {
                raw.storeBytes(of: Int32(component), toByteOffset: index * 4, as: Int32.self)
            }
        }
        return ladder_jpeg_scan(
            component_count: Int32(components.count), components: indices,
            ss: Int32(ss), se: Int32(se), ah: Int32(ah), al: Int32(al))
    }
}

/// How to encode a JPEG.
package struct JPEGEncoding: Sendable, Hashable {
    /// libjpeg quality, 1...100.
    package var quality: Int
    /// True for no chroma subsampling (4:4:4); false for 4:2:0.
    package var fullChroma: Bool
    /// The progressive scan script; empty for a baseline JPEG.
    package var scans: [JPEGScan]
    /// An EXIF block to embed (APP1 payload beginning "Exif\0\0").
    package var exif: [UInt8]?
    /// An ICC profile to embed.
    package var iccProfile: [UInt8]?
    /// For a baseline file: libjpeg's standard Huffman tables instead of optimal ones (faster,
    /// larger; for files that only carry coefficients to be re-scanned).
    package var standardTables = false

    package init(
        quality: Int, fullChroma: Bool, scans: [JPEGScan] = [], exif: [UInt8]? = nil,
        iccProfile: [UInt8]? = nil
    ) {
        self.quality = quality
        self.fullChroma = fullChroma
        self.scans = scans
        self.exif = exif
        self.iccProfile = iccProfile
    }
}

extension Image {
    /// Encodes this 8-bit, 1- or 3-band, in-memory image with libjpeg-turbo, writing exactly the
    /// scans of `encoding.scans` (libvips' own saver cannot take a scan script).
    package func jpegEncoded(_ encoding: JPEGEncoding) throws(ImagingError) -> [UInt8] {
        guard isEightBit, bands == 1 || bands == 3 else {
            throw ImagingError(
                operation: "encode JPEG", path: nil,
                reason: "expected 8-bit grayscale or RGB pixels, got \(bands) bands")
        }
        let scans = encoding.scans.map(\.libjpegScan)
        var message = [CChar](repeating: 0, count: 256)
        var output: UnsafeMutablePointer<UInt8>?
        var length: UInt = 0
        let status = try withPixels { pixels in
            scans.withUnsafeBufferPointer { scanBuffer in
                (encoding.exif ?? []).withUnsafeBufferPointer { exif in
                    (encoding.iccProfile ?? []).withUnsafeBufferPointer { icc in
                        var options = ladder_jpeg_encode_options(
                            quality: Int32(encoding.quality), full_chroma: encoding.fullChroma ? 1 : 0,
                            scans: scanBuffer.baseAddress, scan_count: Int32(scanBuffer.count),
                            exif: exif.baseAddress, exif_length: exif.count,
                            icc: icc.baseAddress, icc_length: icc.count,
                            standard_tables: encoding.standardTables ? 1 : 0)
                        return ladder_jpeg_encode(
                            pixels.baseAddress!.assumingMemoryBound(to: UInt8.self),
                            Int32(width), Int32(height), Int32(bands), width * bands,
                            &options, &output, &length, &message, message.count)
                    }
                }
            }
        }
        guard status == 0, let output else {
            throw ImagingError(
                operation: "encode JPEG", path: nil,
                reason: String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        defer { free(output) }
        return Array(UnsafeBufferPointer(start: output, count: Int(length)))
    }
}
