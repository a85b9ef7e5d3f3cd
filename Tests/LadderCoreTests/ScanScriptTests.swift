import LadderCore
import LadderImaging
import Testing

@Suite("Scan scripts")
struct ScanScriptTests {
    @Test("the recommended scripts have 5 scans and are legal, the color one starting with all DC at full precision")
    func recommendedScripts() throws {
        #expect(ScanScript.recommendedColor.scans.count == 5)
        #expect(ScanScript.recommendedGrayscale.scans.count == 5)
        try ScanScript.recommendedColor.validate(componentCount: 3)
        try ScanScript.recommendedGrayscale.validate(componentCount: 1)
        let first = ScanScript.recommendedColor.scans[0]
        #expect(first.components == [0, 1, 2] && first.ss == 0 && first.se == 0 && first.al == 0)
    }

    @Test("jpegtran notation parses, with comments, and prints back the same")
    func parsesNotation() throws {
        let script = try ScanScript(
            parsing: """
                # Cloudinary's semi-progressive script
                0 1 2: 0 0 0 0;
                0: 1-9, 0, 0;   2: 1-63, 0, 0;
                1: 1-63, 0, 0;  0: 10-63, 0, 0;
                """)
        #expect(script.scans.count == 5)
        #expect(script.scans[1] == JPEGScan(components: [0], ss: 1, se: 9, ah: 0, al: 0))
        try script.validate(componentCount: 3)
        #expect(try ScanScript(parsing: script.description) == script)
        // The text manifests record and verify compares byte for byte.
        #expect(script.description == "0,1,2: 0-0, 0, 0; 0: 1-9, 0, 0; 2: 1-63, 0, 0; 1: 1-63, 0, 0; 0: 10-63, 0, 0;")
        #expect(
            ScanScript([JPEGScan(components: [0, 10], ss: 100, se: 7, ah: 13, al: -1)]).description
                == "0,10: 100-7, 13, -1;")
    }

    @Test(
        "an illegal script is refused with the rule it breaks",
        arguments: [
            ("0,1,2: 0-63, 0, 0;", "either DC"),
            ("0,1,2: 0-0,0,0; 0,1: 1-63, 0, 0;", "only one component"),
            ("0: 1-63, 0, 0; 0,1,2: 0-0, 0, 0;", "after a DC scan"),
            ("0,1,2: 0-0,0,0; 0: 1-63,0,1; 1: 1-63,0,0; 2: 1-63,0,0; 0: 1-63,2,1;", "Ah = 1"),
            ("0,1,2: 0-0,0,0; 0: 1-63,1,0; 1: 1-63,0,0; 2: 1-63,0,0;", "Ah = 0"),
            ("0,1,2: 0-0,0,0; 0: 1-63,0,1; 1: 1-63,0,0; 2: 1-63,0,0;", "sent down to bit 0"),
            ("0,1,2: 0-0,0,0; 0: 1-40,0,0; 1: 1-63,0,0; 2: 1-63,0,0;", "coefficient 41 of component 0 is never sent"),
            ("0,1,3: 0-0,0,0;", "component 3 does not exist"),
            ("1,0,2: 0-0,0,0;", "increasing order"),
            ("0,1,2: 0-0,0,0; 0: 1-64,0,0;", "Se <= 63"),
            ("0,1,2: 0-0,0,11;", "between 0 and 10"),
        ])
    func refusesIllegalScripts(_ text: String, _ rule: String) throws {
        let script = try ScanScript(parsing: text)
        #expect { try script.validate(componentCount: 3) } throws: { error in
            "\(error)".contains(rule)
        }
    }

    @Test("a script with more than 100 scans is refused")
    func refusesTooManyScans() {
        let dc = JPEGScan(components: [0], ss: 0, se: 0, ah: 0, al: 0)
        let script = ScanScript(
            [dc] + Array(repeating: JPEGScan(components: [0], ss: 1, se: 63, ah: 0, al: 0), count: 100))
        #expect { try script.validate(componentCount: 1) } throws: { "\($0)".contains("at most 100") }
    }

    @Test("text that is not a script is refused with what was expected")
    func refusesGarbage() {
        #expect { try ScanScript(parsing: "0,1,2 0 0 0 0") } throws: { "\($0)".contains("components: Ss-Se") }
        #expect { try ScanScript(parsing: "0: 0 0 0") } throws: { "\($0)".contains("four numbers") }
        #expect { try ScanScript(parsing: "  ") } throws: { "\($0)".contains("at least one scan") }
    }
}
