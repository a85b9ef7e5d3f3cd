/// A glob pattern over `/`-separated relative paths.
///
/// `*` matches within one path segment, `**` matches any number of whole segments, `?` one
/// character, `[abc]`, `[a-z]` and `[!abc]` one character of a set, and `{jpg,png}` any of the
/// alternatives. A pattern without a `/` matches a file name at any depth, as in .gitignore.
package struct Glob: Sendable, Hashable, CustomStringConvertible {
    package let pattern: String
    private let alternatives: [[Character]]
    private let matchesNameOnly: Bool

    /// Why a glob pattern cannot be used.
    package struct SyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
        package var pattern: String
        package var reason: String
        package var description: String { "glob \"\(pattern)\": \(reason)" }
    }

    package init(_ pattern: String) throws(SyntaxError) {
        guard !pattern.isEmpty else { throw SyntaxError(pattern: pattern, reason: "empty pattern") }
        guard !pattern.hasPrefix("/") else {
            throw SyntaxError(
                pattern: pattern, reason: "patterns are relative to each source folder; drop the leading '/'")
        }
        var depth = 0
        var inSet = false
        for character in pattern {
            switch character {
            case "[" where !inSet: inSet = true
            case "]" where inSet: inSet = false
            case "{" where !inSet: depth += 1
            case "}" where !inSet:
                depth -= 1
                if depth < 0 { throw SyntaxError(pattern: pattern, reason: "'}' without '{'") }
            default: break
            }
        }
        if inSet { throw SyntaxError(pattern: pattern, reason: "'[' without ']'") }
        if depth != 0 { throw SyntaxError(pattern: pattern, reason: "'{' without '}'") }
        self.pattern = pattern
        guard let alternatives = Self.expandBraces(Array(pattern), limit: Self.maximumAlternatives) else {
            throw SyntaxError(
                pattern: pattern, reason: "its {...} groups give more than \(Self.maximumAlternatives) patterns")
        }
        self.alternatives = alternatives
        self.matchesNameOnly = !pattern.contains("/")
    }

    package var description: String { pattern }

    /// True when `path` (relative, `/`-separated) matches.
    package func matches(_ path: String) -> Bool {
        let subject = Array(matchesNameOnly ? Substring(path.split(separator: "/").last ?? "") : Substring(path))
        return alternatives.contains { alternative in
            var failures = Set<Int>()
            return Self.match(ArraySlice(alternative), ArraySlice(subject), failures: &failures)
        }
    }

    package static func == (lhs: Glob, rhs: Glob) -> Bool { lhs.pattern == rhs.pattern }
    package func hash(into hasher: inout Hasher) { hasher.combine(pattern) }

    /// The most brace-free patterns one glob may expand to: `{a,b}` groups multiply, and twenty
    /// of them would give a million.
    static let maximumAlternatives = 1024

    /// Expands the first `{a,b}` group (recursively), giving brace-free patterns, or nil when
    /// they would be more than `limit`. Braces and commas inside a set (`[{,]`) are characters
    /// of the set, as the syntax check reads them.
    private static func expandBraces(_ pattern: [Character], limit: Int) -> [[Character]]? {
        var open: Int?
        var close = 0
        var depth = 0
        var commas: [Int] = []
        var inSet = false
        for index in pattern.indices {
            let character = pattern[index]
            if inSet {
                if character == "]" { inSet = false }
                continue
            }
            switch character {
            case "[": inSet = true
            case "{":
                if open == nil { open = index }
                depth += 1
            case "}" where depth > 0:
                depth -= 1
                if depth == 0 { close = index }
            case "," where depth == 1: commas.append(index)
            default: break
            }
            if open != nil, depth == 0 { break }
        }
        guard let open, depth == 0 else { return limit >= 1 ? [pattern] : nil }
        let bounds = [open] + commas + [close]
        var result: [[Character]] = []
        for (start, end) in zip(bounds, bounds.dropFirst()) {
            let expanded = Array(pattern[..<open]) + Array(pattern[(start + 1)..<end]) + Array(pattern[(close + 1)...])
            guard let more = expandBraces(expanded, limit: limit - result.count) else { return nil }
            result += more
        }
        return result
    }

    /// Matches a suffix of a pattern against a suffix of the subject. A pair that failed once is
    /// not tried again (`failures` holds them by their start indices), so patterns with many
    /// stars cost at most pattern length x path length tries instead of exponentially many.
    private static func match(
        _ pattern: ArraySlice<Character>, _ text: ArraySlice<Character>, failures: inout Set<Int>
    ) -> Bool {
        let state = pattern.startIndex * (text.endIndex + 1) + text.startIndex
        if failures.contains(state) { return false }
        let matched = matchFromStart(pattern, text, failures: &failures)
        if !matched { failures.insert(state) }
        return matched
    }

    private static func matchFromStart(
        _ pattern: ArraySlice<Character>, _ text: ArraySlice<Character>, failures: inout Set<Int>
    ) -> Bool {
        var pattern = pattern
        var text = text
        while let token = pattern.first {
            switch token {
            case "*":
                if pattern.dropFirst().first == "*" {
                    // "**/" matches zero or more whole segments; a trailing "**" matches the rest.
                    var rest = pattern.dropFirst(2)
                    if rest.first == "/" { rest = rest.dropFirst() } else if rest.isEmpty { return true }
                    var candidate = text
                    while true {
                        if match(rest, candidate, failures: &failures) { return true }
                        guard let slash = candidate.firstIndex(of: "/") else { return false }
                        candidate = candidate[(slash + 1)...]
                    }
                }
                let rest = pattern.dropFirst()
                var candidate = text
                while true {
                    if match(rest, candidate, failures: &failures) { return true }
                    guard let first = candidate.first, first != "/" else { return false }
                    candidate = candidate.dropFirst()
                }
            case "?":
                guard let first = text.first, first != "/" else { return false }
                pattern = pattern.dropFirst()
                text = text.dropFirst()
            case "[":
                guard let first = text.first, first != "/", let close = pattern.dropFirst().firstIndex(of: "]") else {
                    return false
                }
                var set = pattern[(pattern.startIndex + 1)..<close]
                let negated = set.first == "!" || set.first == "^"
                if negated { set = set.dropFirst() }
                var found = false
                var index = set.startIndex
                while index < set.endIndex {
                    let low = set[index]
                    if index + 2 < set.endIndex, set[index + 1] == "-" {
                        if low <= first && first <= set[index + 2] { found = true }
                        index += 3
                    } else {
                        if low == first { found = true }
                        index += 1
                    }
                }
                guard found != negated else { return false }
                pattern = pattern[(close + 1)...]
                text = text.dropFirst()
            default:
                guard text.first == token else { return false }
                pattern = pattern.dropFirst()
                text = text.dropFirst()
            }
        }
        return text.isEmpty
    }
}
