extension PlistValue {
    /// Applies `differences`, as ``differences(from:limit:)`` lists them from this value to
    /// another, with key-path edits: afterwards this value equals the other one.
    ///
    /// The point of patching rather than assigning is what stays: entries the differences do not
    /// name are left where they are, so a ``PlistDocument``'s layout notes (which follow the
    /// value by position) still describe them, and a lossless write changes only the bytes of
    /// the edited entries. A key added to a dictionary goes at its end; an element added to an
    /// array goes at the index the difference names.
    ///
    /// - Throws: ``PlistError`` with code ``PlistError/Code/keyPath`` when a difference does not
    ///   fit this value (it was computed from another one).
    public mutating func apply(_ differences: [PlistDifference]) throws(PlistError) {
        // Removals last and from the end, so that removing one array element does not move the
        // next one to remove. One array never has both additions and removals: it grew or shrank.
        var removals: [PlistKeyPath] = []
        for difference in differences {
            let path = difference.keyPath
            switch difference.change {
            case .removed:
                removals.append(path)
            case .added(let value):
                try insert(value, at: path)
            case .changed(_, let value):
                guard let last = path.components.last else {
                    self = value
                    continue
                }
                if case .index = last {
                    // An index edit inserts (plutil's rule), so the old element goes first.
                    try removeValue(at: path)
                    try insert(value, at: path)
                } else {
                    try replace(value, at: path)
                }
            }
        }
        for path in removals.reversed() {
            try removeValue(at: path)
        }
    }
}
