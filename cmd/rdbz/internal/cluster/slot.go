// Package cluster is Redis Cluster's key space, as rdbz split needs it:
// the hash slot of a key (CRC16 of the key or of its hash tag, modulo
// 16384, as redis src/cluster.c keyHashSlot and src/crc16.c compute it),
// slot ranges, the masters of a `CLUSTER NODES` listing (nodes.conf) with
// the slots each serves, and a Table that maps every slot to one part. It
// knows nothing of the RDB format.
package cluster

// Slots is the number of hash slots of a Redis cluster.
const Slots = 16384

// crc16Table is the table of CRC-16/XMODEM (polynomial 0x1021, not
// reflected, initial value 0, no final xor), built at init.
var crc16Table = func() (t [256]uint16) {
	for i := range 256 {
		c := uint16(i) << 8
		for range 8 {
			if c&0x8000 != 0 {
				c = c<<1 ^ 0x1021
			} else {
				c <<= 1
			}
		}
		t[i] = c
	}
	return t
}()

// CRC16 is the CRC-16/XMODEM ("CCITT", as redis src/crc16.c calls it) of
// b: the check value of "123456789" is 0x31C3.
func CRC16(b []byte) uint16 {
	var c uint16
	for _, x := range b {
		c = c<<8 ^ crc16Table[byte(c>>8)^x]
	}
	return c
}

// HashTag is the part of key that decides its slot: what stands between
// the first '{' and the first '}' after it, when that is not empty; else
// the whole key.
func HashTag(key []byte) []byte {
	for s, c := range key {
		if c != '{' {
			continue
		}
		for e := s + 1; e < len(key); e++ {
			if key[e] == '}' {
				if e == s+1 {
					return key
				}
				return key[s+1 : e]
			}
		}
		return key
	}
	return key
}

// KeySlot is the hash slot of key (CLUSTER KEYSLOT).
func KeySlot(key []byte) int { return int(CRC16(HashTag(key)) & (Slots - 1)) }
