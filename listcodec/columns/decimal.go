package columns

import "math/bits"

// decLen is the number of decimal digits of u (1 for 0).
func decLen(u uint64) int {
	// bits.Len64 * log10(2) (1233/4096) is the digit count or one less.
	n := bits.Len64(u) * 1233 >> 12
	if n < len(pow10) && u >= pow10[n] {
		n++
	}
	return max(n, 1)
}

// pow10[i] is 10^i.
var pow10 = [...]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}

// digitPairs holds "00" to "99".
const digitPairs = "00010203040506070809" + "10111213141516171819" + "20212223242526272829" +
	"30313233343536373839" + "40414243444546474849" + "50515253545556575859" +
	"60616263646566676869" + "70717273747576777879" + "80818283848586878889" + "90919293949596979899"

// putDec writes u's n decimal digits (n = decLen(u)) into b[:n], as
// strconv.AppendUint formats them. It writes in place: AppendUint formats
// into a buffer of its own and appends that, and the copy (a memmove call
// per number) was a third of the cost of the numbers of a tokenized
// string when decompressing app-cache-nocompress (60 of 180 ms).
func putDec(b []byte, u uint64, n int) {
	b = b[:n]
	i := n
	for u >= 100 {
		q := u / 100
		r := 2 * (u - q*100)
		i -= 2
		b[i], b[i+1] = digitPairs[r], digitPairs[r+1]
		u = q
	}
	if u >= 10 {
		b[i-2], b[i-1] = digitPairs[2*u], digitPairs[2*u+1]
	} else {
		b[i-1] = byte('0' + u)
	}
}
