import CLibXML2

/// libxml2 must initialise its global tables once before parsers run on several threads; a
/// Swift global is initialised exactly once, on first use.
private let libXML2Initialized: Void = xmlInitParser()

/// Reads XML property lists the way CoreFoundation reads them, on top of libxml2's streaming
/// SAX2 parser.
///
/// No DTD is loaded, no entity is ever declared or expanded (a DOCTYPE internal subset is an
/// error, as in CF) and no network access happens, so external-entity and entity-expansion
/// attacks have nothing to work with. Nesting beyond ``PlistLimits/maxDepth`` stops the parse at
/// once. libxml2's diagnostics go to a per-parse handler and never to stderr.
///
/// Where CF is more lenient than XML 1.0 the reader follows CF: text before the XML declaration,
/// tag attributes skipped up to the first `>`, anything after the root element ignored,
/// character references to any Unicode scalar (`&#0;` included), raw control characters in
/// strings, and `-->` as the only end of a comment.
public struct XMLPlistReader: Sendable {
    /// Bounds on nesting depth and value count.
    public var limits: PlistLimits

    /// False to parse every document with libxml2, the reference, instead of first trying the
    /// scanner for the subset of XML that property-list writers produce. For differential
    /// testing: both paths give the same value for every document the scanner accepts.
    @_spi(Testing) public var usesCommonSubsetScanner = true

    /// A reader with the given limits.
    public init(limits: PlistLimits = .default) { self.limits = limits }

    /// Reads one XML property list from `bytes` (UTF-8, UTF-16 or UTF-32, with or without a
    /// byte-order mark, or an 8-bit encoding named in the XML declaration).
    ///
    /// - Parameter keepingLayout: also return the notes that let ``XMLPlistWriter`` write the
    ///   document back byte for byte. Nil is returned for them when the document has a shape
    ///   they cannot describe (a repeated dictionary key, a `<plist>` nested in a container).
    /// - Throws: ``PlistError`` with format `.xml` and a line:column location.
    public func read(_ bytes: UnsafeRawBufferPointer, keepingLayout: Bool = true) throws(PlistError) -> (
        value: PlistValue, layout: XMLLayout?
    ) {
        let encoding = try XMLTranscoder.detect(bytes)
        var skip = 0
        if let converted = try XMLTranscoder.utf8Copy(of: bytes, encoding: encoding, skip: &skip) {
            return try converted.withUnsafeBufferPointer { b throws(PlistError) in
                try read(utf8: b, encoding: encoding, keepingLayout: keepingLayout)
            }
        }
        let rest = UnsafeRawBufferPointer(rebasing: bytes[skip...])
        return try read(utf8: rest.assumingMemoryBound(to: UInt8.self), encoding: encoding, keepingLayout: keepingLayout)
    }

    private func read(
        utf8 b: UnsafeBufferPointer<UInt8>, encoding: XMLTextEncoding, keepingLayout: Bool
    ) throws(PlistError) -> (value: PlistValue, layout: XMLLayout?) {
        let session: XMLParseOutcome
        if usesCommonSubsetScanner, let scanned = XMLCommonSubsetScanner.read(b, limits: limits, checkingLayout: keepingLayout) {
            if keepingLayout, var layout = scanned.checkedLayout {
                // A canonical document but for its content notes, which the scanner made.
                layout.encoding = encoding
                return (scanned.value, layout)
            }
            session = XMLParseOutcome(
                result: scanned.value, layoutIsUnreliable: scanned.layoutIsUnreliable, hasRepeatedKeys: scanned.hasRepeatedKeys)
        } else {
            session = try parseWithLibXML2(b)
        }
        guard let value = session.result else {
            throw PlistError(.badRoot, format: .xml, at: .lineColumn(line: 1, column: 1), "the document holds no property-list value")
        }
        guard keepingLayout, !session.layoutIsUnreliable else { return (value, nil) }
        let layout = XMLLayoutScanner.scan(b, value: value, encoding: encoding, expectRepeatedKeys: session.hasRepeatedKeys)
        return (value, layout)
    }

    /// The libxml2 path: the prescan's reconciliations with CF applied, then libxml2's parse.
    private func parseWithLibXML2(_ b: UnsafeBufferPointer<UInt8>) throws(PlistError) -> XMLParseOutcome {
        let prescan = try XMLMarkupPrescan(b)
        let session: XMLParseOutcome
        if prescan.isEmpty {
            session = try parse(b)
        } else {
            let rewritten = prescan.apply(to: b)
            session = try rewritten.withUnsafeBufferPointer { r throws(PlistError) in try parse(r) }
        }
        return session
    }

    /// What a finished parse leaves for the reader: the value and what the layout scanner needs.
    private struct XMLParseOutcome {
        var result: PlistValue?
        var layoutIsUnreliable: Bool
        var hasRepeatedKeys: Bool
    }

    /// Runs libxml2 over UTF-8 text and returns what the session found (its error thrown).
    private func parse(_ b: UnsafeBufferPointer<UInt8>) throws(PlistError) -> XMLParseOutcome {
        _ = libXML2Initialized
        guard let base = b.baseAddress, b.count > 0 else {
            throw PlistError(.unexpectedEnd, format: .xml, at: .lineColumn(line: 1, column: 1), "the document is empty")
        }
        guard b.count < Int(Int32.max) else {
            throw PlistError(.sizeLimit, format: .xml, "XML documents of 2 GB or more are not supported")
        }
        guard
            let context = UnsafeRawPointer(base).withMemoryRebound(to: CChar.self, capacity: b.count, {
                xmlCreateMemoryParserCtxt($0, Int32(b.count))
            })
        else {
            throw PlistError(.sizeLimit, format: .xml, "libxml2 could not allocate a parser")
        }
        defer { xmlFreeParserCtxt(context) }
        let options =
            Int32(XML_PARSE_RECOVER.rawValue) | Int32(XML_PARSE_NONET.rawValue) | Int32(XML_PARSE_HUGE.rawValue)
            | Int32(XML_PARSE_IGNORE_ENC.rawValue)
        xmlCtxtUseOptions(context, options)
        if let sax = context.pointee.sax { sax.pointee = Self.makeHandler() }
        let state = UnsafeMutablePointer<XMLParseSession>.allocate(capacity: 1)
        state.initialize(to: XMLParseSession(limits: limits))
        state.pointee.context = context
        context.pointee.userData = UnsafeMutableRawPointer(state)
        _ = xmlParseDocument(context)
        context.pointee.userData = nil
        let session = state.move()
        state.deallocate()
        if let failure = session.failure { throw failure }
        return XMLParseOutcome(
            result: session.result, layoutIsUnreliable: session.layoutIsUnreliable, hasRepeatedKeys: session.hasRepeatedKeys)
    }

    /// The SAX2 callbacks. Each receives the session as its user data; none captures state.
    private static func makeHandler() -> xmlSAXHandler {
        var h = xmlSAXHandler()
        h.initialized = UInt32(XML_SAX2_MAGIC)
        h.startElementNs = { ctx, localName, prefix, _, _, _, _, _, _ in
            guard let ctx, let localName else { return }
            XMLPlistReader.session(ctx).pointee.startElement(localName: localName, prefix: prefix)
        }
        h.endElementNs = { ctx, _, _, _ in
            guard let ctx else { return }
            XMLPlistReader.session(ctx).pointee.endElement()
        }
        h.characters = { ctx, p, n in
            guard let ctx, let p else { return }
            XMLPlistReader.session(ctx).pointee.characters(p, Int(n))
        }
        h.ignorableWhitespace = h.characters
        h.cdataBlock = { ctx, p, n in
            guard let ctx, let p else { return }
            XMLPlistReader.session(ctx).pointee.cdata(p, Int(n))
        }
        h.comment = { ctx, _ in
            guard let ctx else { return }
            XMLPlistReader.session(ctx).pointee.markupInsideContent("a comment")
        }
        h.processingInstruction = { ctx, _, _ in
            guard let ctx else { return }
            XMLPlistReader.session(ctx).pointee.markupInsideContent("a processing instruction")
        }
        h.reference = { ctx, name in
            guard let ctx else { return }
            XMLPlistReader.session(ctx).pointee.undeclaredEntity(name.map { String(cString: $0) } ?? "")
        }
        h.getEntity = { _, _ in nil }
        h.serror = { ctx, error in
            guard let ctx, let error else { return }
            XMLPlistReader.session(ctx).pointee.diagnostic(error)
        }
        return h
    }

    private static func session(_ ctx: UnsafeMutableRawPointer) -> UnsafeMutablePointer<XMLParseSession> {
        ctx.assumingMemoryBound(to: XMLParseSession.self)
    }
}
