import Foundation
@_spi(Testing) import TroveCore

extension FuzzChecks {
    /// A binary read split over two threads (forced on any size) must agree with the one-thread
    /// read: the same value, or the same error; and with layout notes, the same lossless rewrite,
    /// which the notes decide byte by byte.
    public static func checkBinaryThreadsAgree(_ bytes: UnsafeRawBufferPointer) {
        var oneThread = BinaryPlistReader()
        oneThread.decodesInParallel = false
        var twoThreads = BinaryPlistReader()
        twoThreads.parallelMinimumSize = 0
        for keepingLayout in [false, true] {
            let one = Result { () throws(PlistError) in try oneThread.read(bytes, keepingLayout: keepingLayout) }
            let two = Result { () throws(PlistError) in try twoThreads.read(bytes, keepingLayout: keepingLayout) }
            let mode = keepingLayout ? "with layout notes" : "without layout notes"
            switch (one, two) {
            case (.success(let expected), .success(let read)):
                if let difference = ValueDifference.first(read.value, expected.value) {
                    fail("the two-thread binary read \(mode) gives another value: \(difference)")
                }
                guard keepingLayout else { break }
                let rewrites = [expected, read].map { document in
                    Result { () throws(PlistError) in try BinaryPlistWriter().write(document.value, layout: document.layout) }
                }
                switch (rewrites[0], rewrites[1]) {
                case (.success(let a), .success(let b)):
                    require(a == b, "the two-thread read's notes rewrite the file otherwise: \(firstDifference(Data(a), Data(b)))")
                case (.failure(let a), .failure(let b)):
                    require(a == b, "the two reads' rewrites fail differently: \(a) vs \(b)")
                default:
                    fail("only one of the two reads' notes could be written")
                }
            case (.failure(let expected), .failure(let error)):
                require(error == expected, "the two-thread binary read \(mode) fails otherwise: \(error), expected \(expected)")
            case (.success, .failure(let error)):
                fail("the two-thread binary read \(mode) refuses what one thread reads: \(error)")
            case (.failure(let error), .success):
                fail("the two-thread binary read \(mode) accepts what one thread refuses: \(error)")
            }
        }
    }
}
