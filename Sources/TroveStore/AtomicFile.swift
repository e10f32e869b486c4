// Placeholder: replaced by the atomic file writer.
import TroveCore
