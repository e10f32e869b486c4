import Foundation

/// A property-list date: seconds since 2001-01-01T00:00:00Z, kept as the exact `Double`.
///
/// Binary plists store dates as that double, so nothing is rounded on the way in or out. XML
/// spells dates in whole seconds; a fractional date written to XML loses its fraction exactly as
/// CoreFoundation's writer loses it.
public struct PlistDate: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Seconds since 2001-01-01T00:00:00Z (the Core Foundation reference date).
    public let secondsSinceReferenceDate: Double

    /// A date at the given offset from 2001-01-01T00:00:00Z.
    @inlinable
    public init(secondsSinceReferenceDate: Double) {
        self.secondsSinceReferenceDate = secondsSinceReferenceDate
    }

    /// The date of a Foundation `Date`.
    public init(_ date: Date) {
        self.secondsSinceReferenceDate = date.timeIntervalSinceReferenceDate
    }

    /// This date as a Foundation `Date`.
    public var date: Date { Date(timeIntervalSinceReferenceDate: secondsSinceReferenceDate) }

    /// Bitwise equality of the stored double (NaN equals NaN), so that a lossy round trip shows.
    public static func == (lhs: PlistDate, rhs: PlistDate) -> Bool {
        let a = lhs.secondsSinceReferenceDate, b = rhs.secondsSinceReferenceDate
        if a.isNaN { return b.isNaN }
        return a.bitPattern == b.bitPattern
    }

    public func hash(into hasher: inout Hasher) {
        let s = secondsSinceReferenceDate
        hasher.combine(s.isNaN ? Double.nan.bitPattern : s.bitPattern)
    }

    public static func < (lhs: PlistDate, rhs: PlistDate) -> Bool {
        lhs.secondsSinceReferenceDate < rhs.secondsSinceReferenceDate
    }

    /// ISO 8601 in UTC with whole seconds, as XML plists spell dates (`2001-01-01T00:00:00Z`).
    public var description: String { iso8601String }

    /// ISO 8601 in UTC, whole seconds (the fraction is dropped toward negative infinity, as
    /// CoreFoundation's XML writer does). Years outside 1...9999 are written with their sign
    /// and digits as CoreFoundation would format them.
    public var iso8601String: String {
        let c = CivilTime(secondsSinceReferenceDate: secondsSinceReferenceDate)
        return c.iso8601
    }
}

/// Proleptic Gregorian calendar arithmetic in UTC, done by hand so that formatting and parsing
/// dates never depends on a locale, a time zone database or Foundation's date formatters.
struct CivilTime: Equatable {
    var year: Int64
    var month: Int  // 1...12
    var day: Int  // 1...31
    var hour: Int
    var minute: Int
    var second: Int

    /// Days from 1970-01-01 to 2001-01-01.
    static let referenceEpochDays: Int64 = 11_323

    init(year: Int64, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    /// Splits a reference-date offset into calendar fields, flooring the fraction.
    init(secondsSinceReferenceDate s: Double) {
        let whole: Int64
        if s.isNaN {
            whole = 0
        } else if s >= 9.2e18 {
            whole = 9_200_000_000_000_000_000
        } else if s <= -9.2e18 {
            whole = -9_200_000_000_000_000_000
        } else {
            whole = Int64(s.rounded(.down))
        }
        var days = whole / 86_400
        var rem = whole % 86_400
        if rem < 0 {
            rem += 86_400
            days -= 1
        }
        let (y, m, d) = CivilTime.civil(fromDays: days + CivilTime.referenceEpochDays)
        self.init(
            year: y, month: m, day: d, hour: Int(rem / 3600), minute: Int(rem % 3600 / 60),
            second: Int(rem % 60))
    }

    /// Seconds since the reference date for these fields.
    var secondsSinceReferenceDate: Double {
        let days = CivilTime.days(fromCivil: year, month, day) - CivilTime.referenceEpochDays
        return Double(days) * 86_400 + Double(hour * 3600 + minute * 60 + second)
    }

    /// `YYYY-MM-DDTHH:MM:SSZ`.
    var iso8601: String {
        func pad(_ v: Int, _ width: Int) -> String {
            let s = String(v)
            return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
        }
        let yearText: String
        if year < 0 {
            let mag = String(-year)
            yearText = "-" + (mag.count >= 4 ? mag : String(repeating: "0", count: 4 - mag.count) + mag)
        } else {
            let mag = String(year)
            yearText = mag.count >= 4 ? mag : String(repeating: "0", count: 4 - mag.count) + mag
        }
        return "\(yearText)-\(pad(month, 2))-\(pad(day, 2))T\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2))Z"
    }

    /// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's civil algorithm).
    static func days(fromCivil y0: Int64, _ m: Int, _ d: Int) -> Int64 {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = Int64((m + 9) % 12)
        let doy = (153 * mp + 2) / 5 + Int64(d) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The inverse of ``days(fromCivil:_:_:)``.
    static func civil(fromDays z0: Int64) -> (Int64, Int, Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = Int(doy - (153 * mp + 2) / 5 + 1)
        let m = Int(mp < 10 ? mp + 3 : mp - 9)
        return (m <= 2 ? y + 1 : y, m, d)
    }
}
