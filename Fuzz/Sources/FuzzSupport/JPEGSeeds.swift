import LadderCore
import LadderImaging

extension FuzzSupport {
    /// Small JPEGs made in code: baseline and progressive, colour and grayscale, 4:2:0 and 4:4:4.
    public static func jpegSeeds() -> [[UInt8]] {
        guard (try? Imaging.start(threadsPerImage: 1)) != nil else { return [] }
        func gradient(width: Int, height: Int, bands: Int) -> [UInt8] {
            var pixels: [UInt8] = []
            for y in 0..<height {
                for x in 0..<width {
                    for band in 0..<bands { pixels.append(UInt8((x * 16 + y * 8 + band * 60) % 256)) }
                }
            }
            return pixels
        }
        let color = try? Image(
            pixels: gradient(width: 24, height: 16, bands: 3), width: 24, height: 16, bands: 3, space: .sRGB)
        let gray = try? Image(
            pixels: gradient(width: 16, height: 8, bands: 1), width: 16, height: 8, bands: 1, space: .grayscale)
        let encodings: [(Image?, JPEGEncoding)] = [
            (color, JPEGEncoding(quality: 90, fullChroma: false)),
            (color, JPEGEncoding(quality: 75, fullChroma: true, scans: ScanScript.recommendedColor.scans)),
            (color, JPEGEncoding(quality: 50, fullChroma: false, scans: ScanScript.recommendedColor.scans)),
            (gray, JPEGEncoding(quality: 80, fullChroma: true)),
            (gray, JPEGEncoding(quality: 80, fullChroma: true, scans: ScanScript.recommendedGrayscale.scans)),
        ]
        let files = encodings.compactMap { image, encoding in try? image?.jpegEncoded(encoding) }
        // Files that end just after a segment's marker and length, where a walker may read on.
        var cut: [[UInt8]] = []
        if let progressive = files.dropFirst().first {
            for offset in progressive.indices.dropLast() where progressive[offset] == 0xFF {
                let marker = progressive[offset + 1]
                if marker >= 0xC0, marker != 0xFF, offset + 4 <= progressive.count {
                    cut.append(Array(progressive[..<(offset + 4)]))
                }
            }
        }
        return files + cut
    }
}
