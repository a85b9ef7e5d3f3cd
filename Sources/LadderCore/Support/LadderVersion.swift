/// ladder's own version.
package enum LadderVersion {
    package static let current = "0.1.0"
}
