package convert

import (
	"fmt"

	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/servers"
)

// valkeyAsRedis is the REDIS version a VALKEY-magic file's grammar extends
// (Valkey 9 reads REDIS files up to 11; docs/rdb-format.md §1).
const valkeyAsRedis = 11

// outputHeader is the magic the target reads for a file with magic h: the
// same version where the target reads it, else the nearest it reads;
// VALKEY becomes REDIS for every target but one that reads it.
func outputHeader(h rdbio.Header, t servers.Server) rdbio.Header {
	if h.Valkey && h.Version <= t.ValkeyMagic() {
		return h
	}
	v := h.Version
	if h.Valkey {
		v = valkeyAsRedis
	}
	lo, hi := t.Versions()
	v = max(lo, min(v, hi))
	return rdbio.Header{Magic: fmt.Sprintf("REDIS%04d", v), Version: v}
}
