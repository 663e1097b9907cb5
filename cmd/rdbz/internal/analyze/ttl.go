package analyze

// TTL buckets, relative to the file's ctime.
var ttlBucketNames = []string{"none", "expired", "<1h", "<1d", "<7d", ">=7d"}

func ttlBucket(expire, ref int64) int {
	const hour = 3600 * 1000
	switch left := expire - ref; {
	case expire == -1:
		return 0
	case left <= 0:
		return 1
	case left < hour:
		return 2
	case left < 24*hour:
		return 3
	case left < 7*24*hour:
		return 4
	}
	return 5
}
