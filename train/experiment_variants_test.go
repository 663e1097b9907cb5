package train

type expVariant = struct {
	name string
	cfg  func(*config)
	p    func(*Params)
}

var wideKs = []int{48, 96, 192, 384, 768, 1536, 3072}

func experimentVariants() []expVariant {
	return []expVariant{
		{"zstdgrid", func(c *config) { c.tableN = 1000; c.searchTable = 1000; c.perSample = true; c.refine = true }, nil},
		{"wide", func(c *config) {
			c.tableN = 1000; c.searchTable = 1000; c.perSample = true; c.refine = true; c.ds = []int{6, 7, 8}; c.ks = wideKs
		}, nil},
		{"wide-noretr", func(c *config) {
			c.tableN = 1000; c.searchTable = 1000; c.perSample = true; c.refine = true; c.ds = []int{6, 7, 8}; c.ks = wideKs; c.retrainAll = false
		}, nil},
		{"wide-s.7", func(c *config) {
			c.tableN = 1000; c.searchTable = 1000; c.perSample = true; c.refine = true; c.ds = []int{6, 7, 8}; c.ks = wideKs
		}, func(p *Params) { p.Split = 0.7 }},
	}
}
