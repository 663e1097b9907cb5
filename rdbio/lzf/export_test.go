package lzf

// OldEncode and OldDecode run the encoder and decoder this package had
// before they were made faster (oldimpl_test.go), for the benchmarks of
// lzf_test that put the two side by side.
var (
	OldEncode = func(e *OldEncoder, out, src []byte) (int, bool) { return (*refEncoder)(e).encode(out, src) }
	OldDecode = refDecodeInto
)

// OldEncoder is the old encoder's state.
type OldEncoder refEncoder
