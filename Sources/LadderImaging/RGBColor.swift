/// An 8-bit sRGB color, used as the background that transparent pixels are flattened onto.
package struct RGBColor: Hashable, Sendable, CustomStringConvertible {
    package var red: UInt8
    package var green: UInt8
    package var blue: UInt8

    package init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    package static let white = RGBColor(red: 255, green: 255, blue: 255)

    /// Parses "#rrggbb" (case-insensitive); nil for anything else.
    package init?(hex: String) {
        let digits = Array(hex.utf8)
        guard digits.count == 7, digits[0] == UInt8(ascii: "#"),
            let value = UInt32(String(hex.dropFirst()), radix: 16)
        else { return nil }
        self.init(red: UInt8(value >> 16 & 0xFF), green: UInt8(value >> 8 & 0xFF), blue: UInt8(value & 0xFF))
    }

    /// The gray level of this color (Rec. 601 weights, as libvips uses for sRGB to B_W).
    package var luma: Double {
        (0.299 * Double(red) + 0.587 * Double(green) + 0.114 * Double(blue)).rounded()
    }

    /// "#rrggbb", lower case.
    package var description: String {
        func hex(_ value: UInt8) -> String {
            let text = String(value, radix: 16)
            return value < 16 ? "0" + text : text
        }
        return "#" + hex(red) + hex(green) + hex(blue)
    }
}
