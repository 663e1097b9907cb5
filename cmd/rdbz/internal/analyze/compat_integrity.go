package analyze

import (
	"fmt"

	"github.com/rdbz/rdbz/cmd/rdbz/internal/servers"
	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/blob"
)

// deepBlob says whether s walks every entry of a blob of this kind while
// loading a file with its default configuration (sanitize-dump-payload
// no): every version converts zipmaps, and 7.0 and later (valkey too)
// convert ziplists to listpacks, checking them deeply on the way (rdb.c:
// zipmapValidateIntegrity and ziplistValidateIntegrity called with deep
// 1); 6.2 keeps ziplists and checks their header only; listpacks and
// intsets get the shallow check in every version.
func deepBlob(s servers.Server, kind blob.Kind) bool {
	switch kind {
	case blob.Zipmap:
		return true
	case blob.Ziplist:
		return s.Name() != "redis-6.2"
	}
	return false
}

// causes are the data problems that make s refuse the file (none for
// Dragonfly, whose loader is not modelled here).
func (ig *integrity) causes(s servers.Server) []Cause {
	if s.Dragonfly() {
		return nil
	}
	var out []Cause
	if d := ig.keys.first; ig.keys.count > 0 {
		cs := Cause{Cause: fmt.Sprintf("duplicate key at offset %d (first written at offset %d)", d.off, d.firstOff),
			Fatal: true, Keys: ig.keys.count, Offset: d.off}
		if d.key != nil {
			cs.Cause = fmt.Sprintf("duplicate key %s in db %d at offset %d (first written at offset %d)",
				rdbio.QuoteKey(d.key, 64), d.db, d.off, d.firstOff)
			k, q := keyString(d.key)
			cs.FirstKey, cs.FirstKeyQuoted = &k, q
		}
		out = append(out, cs)
	}
	for kind := range ig.blobs {
		f := &ig.blobs[kind].shallow
		if deepBlob(s, blob.Kind(kind)) {
			f = &ig.blobs[kind].deep
		}
		if f.n > 0 {
			out = append(out, f.cause(fmt.Sprintf("damaged %s in key %s at offset %d: %s",
				blob.Kind(kind), rdbio.QuoteKey(f.key, 64), f.off, f.why), true))
		}
	}
	if ig.keysErr != nil {
		out = append(out, Cause{Cause: "duplicate keys not checked: " + ig.keysErr.Error(), Offset: -1})
	}
	if ig.unchecked.n > 0 {
		out = append(out, ig.unchecked.cause(fmt.Sprintf("blobs over %d bytes not checked", ig.limit), false))
	}
	return out
}
