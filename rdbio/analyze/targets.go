package analyze

import (
	"slices"

	"github.com/rdbz/rdbz/rdbio"
)

// Target is one server's loader rules, as the compatibility verdicts use
// them, for the packages that make a file fit a server (rdbio/convert): one
// table decides both what analyze says a server refuses and what convert
// rewrites.
type Target struct{ s server }

// targetAliases are the names LookupTarget accepts besides the servers'.
var targetAliases = map[string]string{"redis-8.0": "redis-8.0..8.4"}

// LookupTarget finds a server by its name in the compatibility table
// (redis-8.0 is redis-8.0..8.4).
func LookupTarget(name string) (Target, bool) {
	if alias, ok := targetAliases[name]; ok {
		name = alias
	}
	i := slices.IndexFunc(servers, func(s server) bool { return s.name == name })
	if i < 0 {
		return Target{}, false
	}
	return Target{servers[i]}, true
}

// TargetNames are the names LookupTarget accepts, oldest server first.
func TargetNames() []string {
	names := make([]string, 0, len(servers)+len(targetAliases))
	for _, s := range servers {
		names = append(names, s.name)
		for alias, name := range targetAliases {
			if name == s.name {
				names = append(names, alias)
			}
		}
	}
	return names
}

// Name is the server's name in the compatibility table.
func (t Target) Name() string { return t.s.name }

// Versions is the range of REDIS-magic RDB versions the server reads.
func (t Target) Versions() (lowest, highest int) { return t.s.minRedis, t.s.maxRedis }

// ValkeyMagic is the highest VALKEY-magic version the server reads; 0 when
// it reads only the REDIS magic.
func (t Target) ValkeyMagic() int { return t.s.valkeyMax }

// Dragonfly reports whether the server is Dragonfly.
func (t Target) Dragonfly() bool { return t.s.kind == kindDragonfly }

// ReadsType reports whether the server reads a value of type typ.
func (t Target) ReadsType(typ rdbio.Type) bool { return t.s.typeOK(typ) }

// OpCause says whether the server reads opcode op in a file with the
// VALKEY magic or not: "" when it does, else why not and whether that
// stops the load.
func (t Target) OpCause(op byte, valkeyFile bool) (string, bool) { return t.s.opCause(op, valkeyFile) }

// ModuleCause says what the server does with the values of a module type:
// "" when it loads them.
func (t Target) ModuleCause(name string) (string, bool) { return t.s.moduleCause(name) }
