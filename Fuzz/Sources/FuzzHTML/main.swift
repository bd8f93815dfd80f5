// libFuzzer calls this for every input it makes; `sanitizerFailure` (shared with the tests, which
// replay the corpus) says what property broke, and trapping tells libFuzzer to keep the input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTML(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: start, count: count))
    if let failure = sanitizerFailure(bytes) {
        fatalError(failure)
    }
    return 0
}
