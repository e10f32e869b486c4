import Testing

@testable import TroveFileIO

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("The umask, read from /proc without setting it")
struct ProcessUmaskTests {
    private func field(_ text: String) -> mode_t? {
        SystemCall.umaskField(ofProcessStatus: Array(text.utf8))
    }

    @Test("the Umask line's octal value, between blanks, wherever the line is")
    func parsesTheField() {
        #expect(field("Name:\ttrove\nUmask:\t0022\nState:\tR (running)\n") == 0o022)
        #expect(field("Umask:\t0077\n") == 0o077)
        #expect(field("Name:\tx\nUmask: \t 0027 \t") == 0o027)
        #expect(field("Umask:\t1777\n") == 0o777, "only the permission bits count")
        #expect(field("Umask:\t7777777777\n") == 0o777, "ten digits still fit")
    }

    @Test("no value without a Umask line holding an octal number that fits")
    func refusesOtherText() {
        #expect(field("") == nil)
        #expect(field("Name:\ttrove\nState:\tR (running)\n") == nil)
        #expect(field("Umask:\t\nName:\tx\n") == nil)
        #expect(field("Umask:\t0028\n") == nil)
        #expect(field("Umask:\t00 22\n") == nil)
        #expect(field("XUmask:\t0022\n") == nil)
        #expect(field("Umask:\t77777777777\n") == nil, "eleven digits overflow 32 bits")
        #expect(field("Umask:\t0022x\nUmask:\t0077\n") == 0o077, "a later line that holds one is taken")
    }

    @Test("matches what umask(2) reports for this process")
    func matchesTheSystemCall() {
        #expect(SystemCall.currentUmask() == currentUmask())
    }
}
