package import LadderImaging

/// Quality over the download: how good the picture on screen is, on average, while a file
/// arrives byte by byte.
///
/// For a file of N bytes it is the mean, over b = 1 … N, of the SSIM (see `ImageQuality.ssim`)
/// between the final picture and the picture shown once b bytes have arrived, counting 0 while
/// nothing can be shown. A scan is shown from the byte count after which it can be shown (the
/// replay's `endOffset`) until the next one is; a scan that leaves some component without its DC
/// coefficients shows nothing (browsers paint nothing then). 1 would be a file whose final
/// picture showed at once; a file that shows nothing until its last byte scores 1/N.
///
/// The same mean with PSNR against the final picture in place of SSIM, capped (at 60 dB by
/// default, so that the final picture does not count as infinitely good), is `meanPSNR(cap:)`.
package struct DownloadQuality: Sendable, Equatable {
    /// One picture the file can show while it arrives.
    package struct Paint: Sendable, Equatable {
        /// The scan shown (1-based).
        package var scan: Int
        /// The byte count after which it can be shown.
        package var offset: Int
        /// SSIM of its luma against the final picture's.
        package var ssim: Double
        /// PSNR of its luma against the final picture's, in dB (`ImageQuality.identicalPSNR` when equal).
        package var psnr: Double

        package init(scan: Int, offset: Int, ssim: Double, psnr: Double) {
            self.scan = scan
            self.offset = offset
            self.ssim = ssim
            self.psnr = psnr
        }
    }

    /// The file's length.
    package var bytes: Int
    /// The pictures it can show, in order of their offsets.
    package var paints: [Paint]

    package init(bytes: Int, paints: [Paint]) {
        self.bytes = bytes
        self.paints = paints.sorted { $0.offset < $1.offset }
    }

    /// From a replay: its displayable scans.
    package init(_ report: ReplayReport) {
        self.init(
            bytes: report.bytes,
            paints: report.scans.filter(\.displayable).map {
                Paint(scan: $0.scan, offset: $0.endOffset, ssim: $0.ssim, psnr: $0.psnr)
            })
    }

    /// Quality over the download, with SSIM: the mean SSIM over the file's bytes.
    package var meanSSIM: Double { mean { $0.ssim } }

    /// The same mean with PSNR in dB, each picture's PSNR capped at `cap`.
    package func meanPSNR(cap: Double = 60) -> Double { mean { min(cap, $0.psnr) } }

    /// The share of the file after which the first picture shows, nil when none does.
    package var firstPaintShare: Double? {
        paints.first.map { bytes > 0 ? Double($0.offset) / Double(bytes) : 0 }
    }

    private func mean(_ quality: (Paint) -> Double) -> Double {
        guard bytes > 0 else { return 0 }
        var total = 0.0
        for (index, paint) in paints.enumerated() where paint.offset <= bytes {
            // Shown for byte counts offset ... (next offset - 1), the last up to and with N.
            let until = index + 1 < paints.count ? min(paints[index + 1].offset, bytes + 1) : bytes + 1
            total += quality(paint) * Double(max(0, until - max(1, paint.offset)))
        }
        return total / Double(bytes)
    }

    /// Measures `jpeg` by replaying it scan by scan: libjpeg-turbo in buffered-image mode, luma
    /// only, each scan rendered where it becomes renderable and compared with the last one (the
    /// final picture). Several times faster than a full `ProgressiveReplay`, which also checks
    /// the file; made for scoring many candidate encodings of one picture.
    ///
    /// Throws when the file is not a complete JPEG that libjpeg decodes without complaint.
    package init(measuring jpeg: [UInt8], maximumScans: Int = ScanScript.maximumScans) throws(ImagingError) {
        func failure(_ reason: String) -> ImagingError {
            ImagingError(operation: "measure the quality over the download", path: nil, reason: reason)
        }
        let structure: JPEGStructure
        do {
            structure = try JPEGStructure(parsing: jpeg, scanLimit: maximumScans)
        } catch {
            throw failure("not a well-formed JPEG: \(error)")
        }
        guard structure.endOfImage != nil else { throw failure("the file is truncated") }
        let decoder = try JPEGReplayDecoder(jpeg, maximumScans: maximumScans, lumaOnly: true)
        var report = ReplayReport(
            path: "", bytes: jpeg.count, width: structure.width, height: structure.height,
            progressive: structure.isProgressive, scans: [], firstPaintOffset: nil, firstShownAt: nil,
            matchesOneShotDecode: false, problems: [])
        // One chunk: stops only where scans become renderable.
        let rendered = ProgressiveReplay.renderScans(
            decoder, structure: structure, chunkBytes: Int.max, report: &report, frames: nil)
        if let error = rendered.failure { throw error }
        if decoder.state.warnings > 0 { throw failure("libjpeg warns: \(decoder.lastWarning)") }
        guard let final = rendered.lumas.last, decoder.state.inputComplete else {
            throw failure("libjpeg did not reach the end of the image")
        }
        let (width, height) = (decoder.state.width, decoder.state.height)
        let shown = report.scans.indices.filter { report.scans[$0].displayable }
        let ssims = ImageQuality.ssim(shown.map { rendered.lumas[$0] }, reference: final, width: width, height: height)
        self.init(
            bytes: jpeg.count,
            paints: zip(shown, ssims).map { index, ssim in
                Paint(
                    scan: index + 1, offset: report.scans[index].endOffset, ssim: ssim,
                    psnr: ImageQuality.psnr(rendered.lumas[index], reference: final))
            })
    }
}
