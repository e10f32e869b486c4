/// A container a text parser is filling. A class, so that appending to the container on top of
/// the stack mutates it in place instead of copying it (which would make parsing quadratic).
final class TextContainerFrame {
    enum Kind {
        case array, dictionary
        /// The body of an OpenStep `.strings` file: entries without enclosing braces.
        case braceLessDictionary
    }

    let kind: Kind
    /// Where the container opened, for errors about its end.
    let openedAt: Int
    // The parser that owns a frame is the only code that reaches it, one access at a time, so
    // the runtime's exclusivity check on every access to a class's stored property is skipped:
    // it cost a tenth of reading a JSON document of small records.
    /// An array's elements, or a dictionary's values in the order their keys came.
    @exclusivity(unchecked) var items: [PlistValue] = []
    /// A dictionary's keys as they came, repeats included: the dictionary is assembled once, when
    /// it closes (see ``TextTreeBuilder/close(_:)``), rather than hashed into a table key by key.
    @exclusivity(unchecked) var keys: [String] = []
    /// The key whose value is being parsed, if any.
    @exclusivity(unchecked) var pendingKey: String?

    init(_ kind: Kind, openedAt: Int) {
        self.kind = kind
        self.openedAt = openedAt
    }

    var isArray: Bool { kind == .array }

    /// Adds a dictionary entry; a repeated key keeps its first position and takes the last value
    /// when the dictionary is assembled.
    func add(_ value: PlistValue, forKey key: String) {
        keys.append(key)
        items.append(value)
    }
}

/// The value tree the JSON and OpenStep parsers build: the containers under construction on an
/// explicit stack, never the call stack, and the accounting of ``PlistLimits`` for everything
/// they decode.
///
/// Nesting is bounded by ``PlistLimits/maxDepth`` and the heap, values by
/// ``PlistLimits/maxValues`` (and ``PlistLimits/maxExpandedValues``, the same count here since
/// text cannot share), and strings, data and keys by ``PlistLimits/maxDecodedBytes``. Every
/// check is made once per value; a returned ``PlistLimit`` is turned into an error by the parser,
/// which knows the location.
struct TextTreeBuilder {
    let limits: PlistLimits
    /// The containers being read, outermost first.
    private(set) var stack: [TextContainerFrame] = []
    private var meter: LimitMeter
    /// Builds each dictionary from its collected entries when it closes. A class reference, so
    /// the parsers holding the builder stay copyable; it is used by this builder alone.
    private let dictionaries = TextDictionaryAssembler()

    init(limits: PlistLimits) {
        self.limits = limits
        meter = LimitMeter(limits: limits)
    }

    /// The innermost open container.
    var top: TextContainerFrame? { stack.last }

    /// Opens a container, unless that would nest deeper than the limit.
    mutating func open(_ kind: TextContainerFrame.Kind, at position: Int) -> PlistLimit? {
        if stack.count >= limits.maxDepth { return .depth }
        stack.append(TextContainerFrame(kind, openedAt: position))
        return nil
    }

    /// Closes the innermost container, `frame`, and returns it finished.
    mutating func close(_ frame: TextContainerFrame) -> PlistValue {
        precondition(stack.last === frame, "only the innermost container closes")
        stack.removeLast()
        return finished(frame)
    }

    /// The value of `frame`'s container with the entries read so far.
    func finished(_ frame: TextContainerFrame) -> PlistValue {
        if frame.isArray { return .array(frame.items) }
        return .dictionary(dictionaries.assemble(keys: frame.keys, values: frame.items))
    }

    /// Counts a finished value (and the key it will be stored under, if any) against the limits.
    /// Containers count their own keys as they are counted, one by one, as their values.
    mutating func count(_ value: PlistValue, key: String? = nil) -> PlistLimit? {
        if let exceeded = meter.countValue() { return exceeded }
        var bytes = key?.utf8.count ?? 0
        switch value {
        case .string(let s): bytes += s.utf8.count
        case .data(let d): bytes += d.count
        default: break
        }
        return bytes == 0 ? nil : meter.countBytes(bytes)
    }

    /// Starts over with a single open container, for a document re-read in another shape.
    mutating func restart(with kind: TextContainerFrame.Kind, at position: Int) {
        meter = LimitMeter(limits: limits)
        stack = [TextContainerFrame(kind, openedAt: position)]
    }
}

/// A ``PlistDictionaryAssembler`` behind a reference, for the copyable text parsers: its scratch
/// table is reused for every small dictionary of a read.
final class TextDictionaryAssembler {
    private let assembler = PlistDictionaryAssembler()

    func assemble(keys: [String], values: [PlistValue]) -> PlistDictionary {
        assembler.assemble(keys: keys, values: values, keeping: .lastValue).dictionary
    }
}
