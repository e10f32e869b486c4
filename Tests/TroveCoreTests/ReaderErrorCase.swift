import Testing

@testable import TroveCore

/// One input a text reader must refuse, the error code it must refuse it with and the line and
/// column the error must name: a row of the JSON and OpenStep error tables. `Options` is the
/// reader's options type, so a row can turn on what its input needs (GNUstep values).
struct ReaderErrorCase<Options: OptionSet & Sendable>: Sendable, CustomStringConvertible {
    var bytes: [UInt8]
    var code: PlistError.Code
    /// 0 for an input with no place to point at (empty input): the place is then not checked.
    var line: Int
    var column: Int
    var options: Options
    var description: String { String(decoding: bytes.prefix(40), as: UTF8.self).debugDescription }

    init(_ text: String, _ code: PlistError.Code, _ line: Int, _ column: Int, options: Options = []) {
        self.init(bytes: Array(text.utf8), code, line, column, options: options)
    }

    init(bytes: [UInt8], _ code: PlistError.Code, _ line: Int, _ column: Int, options: Options = []) {
        self.bytes = bytes
        self.code = code
        self.line = line
        self.column = column
        self.options = options
    }

    /// Expects `read` to refuse this input with a typed error that names `format`, this case's
    /// code and place, and says what is wrong.
    func expectRefusal(
        naming format: PlistFormat, sourceLocation: SourceLocation = #_sourceLocation,
        _ read: (Self) throws(PlistError) -> PlistValue
    ) {
        do {
            let value = try read(self)
            Issue.record("read \(value) instead of failing", sourceLocation: sourceLocation)
        } catch {
            #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
            #expect(error.format == format, sourceLocation: sourceLocation)
            if line > 0 {
                #expect(error.location == .lineColumn(line: line, column: column), "\(error)", sourceLocation: sourceLocation)
            }
            #expect(!error.message.isEmpty, sourceLocation: sourceLocation)
        }
    }
}
