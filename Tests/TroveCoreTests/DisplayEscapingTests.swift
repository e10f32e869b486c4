import Testing
import TroveCore

@Suite("Display escaping")
struct DisplayEscapingTests {
    @Test("one rule for quoted and bare display text: line breaks, tabs, C0, DEL and C1 escaped")
    func rule() {
        #expect(DisplayEscaping.quoted("a\"b\\c\n\t\r") == #""a\"b\\c\n\t\r""#)
        #expect(DisplayEscaping.quoted("\u{1B}[31m\u{7F}\u{85}é😀") == "\"\\u{1b}[31m\\u{7f}\\u{85}é😀\"")
        #expect(DisplayEscaping.escapingControlCharacters("plain \"text\" é") == "plain \"text\" é")
        #expect(DisplayEscaping.escapingControlCharacters("bell\u{7}\n") == "bell\\u{7}\\n")
        // The value model's description and the CLI use the same rule.
        #expect(PlistValue.string("\u{9F}x").description == "\"\\u{9f}x\"")
    }
}
