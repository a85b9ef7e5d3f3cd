/// ladder's own version.
public enum LadderVersion {
    public static let current = "0.1.0"
}
