/// Quality over the download: how good the picture on screen is, averaged over the bytes of the
/// file as they arrive, counting 0 before the first picture. A file whose first picture comes
/// early and whose later scans improve it soon scores high; 1 would mean the final picture from
/// the first byte.
public enum DownloadQuality {
    /// `qualities[k]` is the quality of the picture after scan k + 1 (1 for the final one),
    /// shown from byte `showableAt[k]` until the next scan shows; `total` is the file's length.
    public static func mean(qualities: [Double], showableAt: [Int], total: Int) -> Double {
        precondition(qualities.count == showableAt.count, "one quality per scan")
        guard total > 0 else { return 0 }
        var sum = 0.0
        for index in qualities.indices {
            let from = min(total, showableAt[index])
            let to = index + 1 < showableAt.count ? min(total, showableAt[index + 1]) : total
            sum += qualities[index] * Double(max(0, to - from))
        }
        return sum / Double(total)
    }

    /// PSNR values (dB) as qualities on a 0...1 scale: capped at `cap` and divided by it, so
    /// that identical pictures count 1.
    public static func psnrQuality(_ psnr: Double, cap: Double = 60) -> Double {
        max(0, min(psnr, cap)) / cap
    }
}
