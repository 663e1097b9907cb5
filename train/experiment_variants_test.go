package train

// expVariant is one configuration compared by TestExperiment.
type expVariant = struct {
	name string
	cfg  func(*config)
	p    func(*Params)
}

// experimentVariants lists the configurations TestExperiment compares; edit
// it to try ideas. Findings so far (ours/zstd on the sets of comparisonSets
// at 16 and 64 KiB, held-out bytes, lower is better):
//   - counting d-mers once per sample instead of per occurrence (zstd):
//     -0.1..-0.5% on JSON and logs; searching both modes: mixed, +40% CPU;
//   - entropy tables fitted to klauspost's parse at full precision, with
//     table logs chosen per table, instead of zstd.BuildDict's: -0.2..-0.6%;
//     zstd's own tables (fitted to zstd's parse) are also worse than ours;
//   - d in {6,7,8} and k in 48..3072 instead of zstd's d=8, k in
//     {50,537,...,1998}: -0.1..-0.3%;
//   - shuffling the samples (as zstd does) before cutting epochs: -0.3..-1.4%
//     at 16 KiB, within ±0.15% at 64 KiB;
//   - trying the winner at 1/2, 1/4, 1/8 of the size: lists-events picks
//     8 KiB and gains 2.4% at a 64 KiB budget;
//   - a preliminary round on 1 MB keeping the best 6 of 21 candidates: same
//     results for 35% less CPU;
//   - no gain: ordering segments by score, dropping d-mers seen in one
//     sample only, split 0.7 or 0.9, keeping the winner's content instead
//     of selecting again from all samples, more than 250 samples for the
//     candidates' tables.
//
// Measured for speed (issue 10), by the size of `rdbz compress` output on
// the generated corpus against the full search at f=20:
//   - f=18 instead of 20 (a 1 MiB table, which stays in the L2 cache):
//     25% less time, every file within -1.8..+0.42%;
//   - a stepwise search (k at every other grid point, then the best k's
//     neighbours, then the other d), 7 of 21 prelim candidates, 3
//     finalists: lists-logs +1.26%;
//   - half the samples for the candidates' tables (512 KiB, 120), or half
//     the preliminary round: lists-logs +1.24%;
//   - a preliminary round on 512 KiB judged on 256 KiB, its candidates'
//     tables fitted on 256 KiB (64 samples): the same sizes on every file
//     (one -0.2%), 20% less time; keeping 4 finalists instead of 6: up to
//     +0.3%, 8% less time (not taken);
//   - judging candidates by their raw content (no entropy tables fitted):
//     30% less time, lists-logs +1.24%;
//   - judging by what a candidate costs all the list data, its dictionary
//     (stored once) included: mixed-* -1.5..-1.9%, but lists-ints-small
//     +2.2% (a smaller dictionary then misses compress's 5% gate).
//
// The noise floor: another shuffle seed moves a set by ±0.3%.
func experimentVariants() []expVariant {
	return []expVariant{
		{"default", nil, nil},
		{"no-shuffle", func(c *config) { c.shuffle = false }, nil},
		{"no-shrink", func(c *config) { c.shrink = 0 }, nil},
		{"zstd-like", func(c *config) {
			c.counts = []bool{false}
			c.ds, c.ks = []int{8}, []int{50, 537, 1024, 1511, 1998}
			c.shrink = 0
		}, nil},
	}
}
