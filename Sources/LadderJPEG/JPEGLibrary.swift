internal import CJPEG

/// The libjpeg-turbo this module was built against.
package enum JPEGLibrary {
    /// Its version, "2.1.5" (from LIBJPEG_TURBO_VERSION_NUMBER, which libjpeg-turbo writes as
    /// 2001005).
    package static var version: String {
        let number = Int(LIBJPEG_TURBO_VERSION_NUMBER)
        return "\(number / 1_000_000).\(number / 1000 % 1000).\(number % 1000)"
    }
}
