import Foundation

/// A reader of one on-disk format: bytes in, a ``PlistDocument`` (value and layout notes) out.
///
/// Each format's reader (``BinaryPlistReader``, ``XMLPlistReader``, ``OpenStepPlistReader``,
/// ``JSONPlistReader``) conforms, and ``Plist/read(bytes:options:)`` reaches them through
/// ``PlistFormat/reader(_:)``, so code above the format layer reads any format through this one
/// shape and passes each format's own options along in ``PlistReadOptions``.
public protocol PlistFormatReader: Sendable {
    /// The format this reader reads.
    var format: PlistFormat { get }

    /// Reads one whole document. With `keepingLayout`, formats that keep layout notes record them
    /// so that ``PlistFormatWriter/writeDocument(_:)`` can write the document back unchanged.
    func readDocument(_ bytes: UnsafeRawBufferPointer, keepingLayout: Bool) throws(PlistError) -> PlistDocument
}

/// A writer of one on-disk format: a ``PlistDocument`` in, bytes out.
///
/// A document whose layout notes came from this format is written following them (an unchanged
/// document comes back byte for byte); any other is written in the format's standard layout.
public protocol PlistFormatWriter: Sendable {
    /// The format this writer writes.
    var format: PlistFormat { get }

    /// Writes `document.value`, following `document.layout` when it is this format's.
    func writeDocument(_ document: PlistDocument) throws(PlistError) -> Data
}

/// Options for writing, passed through to the format's writer.
public struct PlistWriteOptions: Sendable {
    /// Bounds on what is written (nesting, expansion of shared containers).
    public var limits: PlistLimits
    /// The OpenStep writer's switches.
    public var openStep: OpenStepPlistWriter.Options
    /// The JSON writer's switches (``JSONPlistWriter/Options/plutilPretty`` for `plutil -r`).
    public var json: JSONPlistWriter.Options

    /// CoreFoundation's output: default limits, no switches.
    public init(
        limits: PlistLimits = .default, openStep: OpenStepPlistWriter.Options = [], json: JSONPlistWriter.Options = []
    ) {
        self.limits = limits
        self.openStep = openStep
        self.json = json
    }
}

extension PlistFormat {
    /// This format's reader, configured by `options`.
    public func reader(_ options: PlistReadOptions = PlistReadOptions()) -> any PlistFormatReader {
        switch self {
        case .binary:
            var reader = BinaryPlistReader(limits: options.limits)
            reader.decodesInParallel = options.decodesBinaryInParallel
            return reader
        case .xml: return XMLPlistReader(limits: options.limits)
        case .openStep: return OpenStepPlistReader(limits: options.limits, options: options.openStep)
        case .json: return JSONPlistReader(limits: options.limits, options: options.json)
        }
    }

    /// Reads `bytes` as this format with the reader ``reader(_:)`` gives, called on its concrete
    /// type: boxing the reader in an existential costs an allocation, which shows in the time of
    /// reading a small file.
    func readDocument(_ bytes: UnsafeRawBufferPointer, options: PlistReadOptions) throws(PlistError) -> PlistDocument {
        switch self {
        case .binary:
            var reader = BinaryPlistReader(limits: options.limits)
            reader.decodesInParallel = options.decodesBinaryInParallel
            return try reader.readDocument(bytes, keepingLayout: options.keepsLayout)
        case .xml:
            return try XMLPlistReader(limits: options.limits).readDocument(bytes, keepingLayout: options.keepsLayout)
        case .openStep:
            return try OpenStepPlistReader(limits: options.limits, options: options.openStep)
                .readDocument(bytes, keepingLayout: options.keepsLayout)
        case .json:
            return try JSONPlistReader(limits: options.limits, options: options.json)
                .readDocument(bytes, keepingLayout: options.keepsLayout)
        }
    }

    /// Writes `document` in this format with the writer ``writer(_:)`` gives, called on its
    /// concrete type: a writer holding the limits is too large for an existential's inline
    /// buffer, and boxing it cost an allocation per write, which shows in the time of writing a
    /// small file.
    func writeDocument(_ document: PlistDocument, options: PlistWriteOptions) throws(PlistError) -> Data {
        switch self {
        case .binary:
            return try BinaryPlistWriter(limits: options.limits).writeDocument(document)
        case .xml:
            return try XMLPlistWriter(limits: options.limits).writeDocument(document)
        case .openStep:
            return try OpenStepPlistWriter(options.openStep, limits: options.limits).writeDocument(document)
        case .json:
            var writer = JSONPlistWriter(options.json)
            writer.limits = options.limits
            return try writer.writeDocument(document)
        }
    }

    /// This format's writer, configured by `options`.
    public func writer(_ options: PlistWriteOptions = PlistWriteOptions()) -> any PlistFormatWriter {
        switch self {
        case .binary: return BinaryPlistWriter(limits: options.limits)
        case .xml: return XMLPlistWriter(limits: options.limits)
        case .openStep: return OpenStepPlistWriter(options.openStep, limits: options.limits)
        case .json:
            var writer = JSONPlistWriter(options.json)
            writer.limits = options.limits
            return writer
        }
    }
}

extension BinaryPlistReader: PlistFormatReader {
    public var format: PlistFormat { .binary }

    public func readDocument(_ bytes: UnsafeRawBufferPointer, keepingLayout: Bool) throws(PlistError) -> PlistDocument {
        let (value, layout) = try read(bytes, keepingLayout: keepingLayout)
        return PlistDocument(value: value, format: .binary, layout: layout.map { .binary($0) })
    }
}

extension XMLPlistReader: PlistFormatReader {
    public var format: PlistFormat { .xml }

    public func readDocument(_ bytes: UnsafeRawBufferPointer, keepingLayout: Bool) throws(PlistError) -> PlistDocument {
        let (value, layout) = try read(bytes, keepingLayout: keepingLayout)
        return PlistDocument(value: value, format: .xml, layout: layout.map { .xml($0) })
    }
}

extension OpenStepPlistReader: PlistFormatReader {
    public var format: PlistFormat { .openStep }

    public func readDocument(_ bytes: UnsafeRawBufferPointer, keepingLayout: Bool) throws(PlistError) -> PlistDocument {
        let (value, layout) = try read(bytes, keepingLayout: keepingLayout)
        return PlistDocument(value: value, format: .openStep, layout: layout.map { .openStep($0) })
    }
}

extension JSONPlistReader: PlistFormatReader {
    public var format: PlistFormat { .json }

    public func readDocument(_ bytes: UnsafeRawBufferPointer, keepingLayout: Bool) throws(PlistError) -> PlistDocument {
        let (value, layout) = try read(bytes, keepingLayout: keepingLayout)
        return PlistDocument(value: value, format: .json, layout: layout.map { .json($0) })
    }
}

extension BinaryPlistWriter: PlistFormatWriter {
    public var format: PlistFormat { .binary }

    public func writeDocument(_ document: PlistDocument) throws(PlistError) -> Data {
        guard case .binary(let layout)? = document.layout, document.format == .binary else {
            return try writeData(document.value)
        }
        return try writeData(document.value, layout: layout)
    }
}

extension XMLPlistWriter: PlistFormatWriter {
    public var format: PlistFormat { .xml }

    public func writeDocument(_ document: PlistDocument) throws(PlistError) -> Data {
        guard case .xml(let layout)? = document.layout, document.format == .xml else {
            return try writeData(document.value)
        }
        return try writeData(document.value, layout: layout)
    }
}

extension OpenStepPlistWriter: PlistFormatWriter {
    public var format: PlistFormat { .openStep }

    public func writeDocument(_ document: PlistDocument) throws(PlistError) -> Data {
        guard case .openStep(let layout)? = document.layout, document.format == .openStep else {
            return Data(try write(document.value))
        }
        return try writeData(document.value, layout: layout)
    }
}

extension JSONPlistWriter: PlistFormatWriter {
    public var format: PlistFormat { .json }

    public func writeDocument(_ document: PlistDocument) throws(PlistError) -> Data {
        guard case .json(let layout)? = document.layout, document.format == .json else {
            return try writeData(document.value)
        }
        return try writeData(document.value, layout: layout)
    }
}
