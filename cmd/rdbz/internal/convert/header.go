package convert

import (
	"errors"
	"fmt"

	"github.com/rdbz/rdbz/cmd/rdbz/internal/servers"
	"github.com/rdbz/rdbz/rdbio"
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

// ErrMerge is wrapped by the error of files that cannot share one magic.
var ErrMerge = errors.New("cannot share one RDB version")

// MergedHeader is the magic of one file holding the records of files with
// the magics hs (rdbz merge), dfly[i] saying that file i is Dragonfly's:
// the lowest version that holds them all, the highest of theirs (a loader
// reads the records of every older version). A VALKEY magic holds REDIS
// files up to version 11, the grammar it extends. An error (ErrMerge)
// names what cannot share one: a VALKEY file and a REDIS file over 11, a
// Dragonfly file and another producer's, Dragonfly files of two versions
// (what Dragonfly's type bytes mean depends on it); converting them for one
// target first (Convert) makes them mergeable.
func MergedHeader(hs []rdbio.Header, dfly []bool) (rdbio.Header, error) {
	out := hs[0]
	for i, h := range hs {
		if dfly[i] != dfly[0] || (dfly[i] && h.Magic != hs[0].Magic) {
			return out, fmt.Errorf("%w: input %d (%s%s) and input 1 (%s%s): convert them for one target (--target)",
				ErrMerge, i+1, h.Magic, dragonflyNote(dfly[i]), hs[0].Magic, dragonflyNote(dfly[0]))
		}
		if h.Valkey != out.Valkey {
			redis := h
			if h.Valkey {
				redis, out = out, h
			}
			if redis.Version > valkeyAsRedis {
				return out, fmt.Errorf("%w: %s and %s (a VALKEY file holds REDIS records up to version %d): convert them for one target (--target)",
					ErrMerge, out.Magic, redis.Magic, valkeyAsRedis)
			}
			continue
		}
		if h.Version > out.Version {
			out = h
		}
	}
	return out, nil
}

func dragonflyNote(dfly bool) string {
	if dfly {
		return ", Dragonfly's"
	}
	return ""
}
