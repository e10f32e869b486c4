/// What the first types a coder meets were found to be, so that a dynamic cast, which costs more
/// than the rest of encoding or decoding a small value, runs once per type rather than once per
/// value. A few types make up most documents; past 16 the cast runs every time.
struct TypeMemo<Answer> {
    private var known: [(type: ObjectIdentifier, answer: Answer)] = []

    /// The answer for `type`, found by `find` the first time.
    @inline(__always)
    mutating func answer<T>(for type: T.Type, _ find: (T.Type) -> Answer) -> Answer {
        let id = ObjectIdentifier(type)
        for entry in known where entry.type == id { return entry.answer }
        let answer = find(type)
        if known.count < 16 { known.append((id, answer)) }
        return answer
    }
}
