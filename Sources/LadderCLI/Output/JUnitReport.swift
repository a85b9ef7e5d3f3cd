import Foundation
import LadderCore

/// JUnit XML for CI systems: one test case per image (named by its first source), plus test
/// cases for the sources, the output folder and the manifest as a whole.
struct JUnitReport {
    let report: VerificationReport

    init(_ report: VerificationReport) { self.report = report }

    struct Case {
        var name: String
        var group: String
        var problems: [VerificationProblem]
    }

    var cases: [Case] {
        var byImage: [String: [VerificationProblem]] = [:]
        var sources: [VerificationProblem] = []
        var output: [VerificationProblem] = []
        var manifest: [VerificationProblem] = []
        for problem in report.problems {
            if let image = problem.image, report.sourceNames[image] != nil || problem.kind != .stale {
                byImage[image, default: []].append(problem)
            } else if problem.kind == .stale || problem.kind == .sourceUnreadable {
                sources.append(problem)
            } else if problem.kind == .orphan {
                output.append(problem)
            } else {
                manifest.append(problem)
            }
        }
        var cases = report.sourceNames.keys.sorted().map { image in
            Case(
                name: report.sourceNames[image] ?? image, group: "images",
                problems: byImage.removeValue(forKey: image) ?? [])
        }
        for (image, problems) in byImage.sorted(by: { $0.key < $1.key }) {
            cases.append(Case(name: image, group: "images", problems: problems))
        }
        cases.append(Case(name: "sources match the manifest", group: "sources", problems: sources))
        cases.append(Case(name: "no unknown files in the output folder", group: "output", problems: output))
        cases.append(Case(name: "manifest is readable and safe", group: "manifest", problems: manifest))
        return cases
    }

    var xml: String {
        let cases = self.cases
        let failures = cases.filter { !$0.problems.isEmpty }.count
        var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        text += "<testsuites name=\"ladder verify\" tests=\"\(cases.count)\" failures=\"\(failures)\">\n"
        text +=
            "  <testsuite name=\"ladder verify\" tests=\"\(cases.count)\" failures=\"\(failures)\" errors=\"0\" skipped=\"0\">\n"
        for testCase in cases {
            text += "    <testcase classname=\"ladder.verify.\(testCase.group)\" name=\"\(xmlEscape(testCase.name))\""
            guard let first = testCase.problems.first else {
                text += "/>\n"
                continue
            }
            let kinds = Array(Set(testCase.problems.map(\.kind.rawValue))).sorted().joined(separator: ", ")
            let details = testCase.problems.map { "\($0.path): \($0.kind): \($0.message)" }.joined(separator: "\n")
            text +=
                ">\n      <failure type=\"\(xmlEscape(kinds))\" message=\"\(xmlEscape(first.kind.rawValue + ": " + first.message))\">"
            text += xmlEscape(details) + "</failure>\n    </testcase>\n"
        }
        text += "  </testsuite>\n</testsuites>\n"
        return text
    }

    func write(to path: String) throws {
        try Data(xml.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}

/// XML text and attribute escaping; characters XML 1.0 forbids are dropped.
func xmlEscape(_ text: String) -> String {
    var result = ""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "&": result += "&amp;"
        case "<": result += "&lt;"
        case ">": result += "&gt;"
        case "\"": result += "&quot;"
        case "'": result += "&apos;"
        case "\n": result += "&#10;"
        default:
            if scalar.value < 0x20 && scalar != "\t" && scalar != "\r" { continue }
            result.unicodeScalars.append(scalar)
        }
    }
    return result
}
