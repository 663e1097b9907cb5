package rdbio

import "testing"

func TestHeaderTypeOf(t *testing.T) {
	redis := Header{Magic: "REDIS0011", Version: 11}
	valkey := Header{Magic: "VALKEY080", Version: 80, Valkey: true}
	dfly := Header{Magic: "REDIS0009", Version: 9}
	cases := []struct {
		h    Header
		dfly bool
		b    byte
		want Type
		ok   bool
	}{
		{redis, false, 0, TypeString, true},
		{redis, false, 16, TypeHashListpack, true},
		{redis, false, 22, TypeHashMetaPreGA, true},
		{valkey, false, 22, TypeHash2, true},
		{valkey, false, 23, TypePathHash, true},
		{dfly, true, 20, TypeDflyJSONOld, true},
		{redis, false, 20, TypeSetListpack, true},
		{dfly, true, 30, TypeDflyJSON, true},
		{redis, false, 8, 8, false},
		{redis, false, 100, 100, false},
	}
	for _, c := range cases {
		got, ok := c.h.TypeOf(c.b, c.dfly)
		if got != c.want || ok != c.ok {
			t.Errorf("%s (dragonfly %v).TypeOf(%d) = %v, %v; want %v, %v", c.h.Magic, c.dfly, c.b, got, ok, c.want, c.ok)
		}
	}
}
