package train

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/rdbz/rdbz/rdbio/blob"
)

// This file generates deterministic synthetic sample sets that look like the
// quicklist nodes rdbz compresses: listpacks (Redis 7 list node format) of JSON
// job-queue events, of web server and syslog lines, and of small integers.

const listpackMaxBytes = 8192 // list-max-listpack-size -2

// packLists turns element streams into listpack nodes: each list gets
// nElems(rng) elements from gen, packed into 8 KiB nodes (an element over
// 8 KiB alone in one), until about totalBytes of nodes exist.
func packLists(rng *rand.Rand, totalBytes int, nElems func(*rand.Rand) int, gen func(*rand.Rand) string) [][]byte {
	var out [][]byte
	size := 0
	lp := blob.NewListpackWriter(listpackMaxBytes)
	flush := func(w *blob.ListpackWriter) {
		if w.Len() > 0 {
			b := bytes.Clone(w.Bytes())
			out = append(out, b)
			size += len(b)
			w.Reset()
		}
	}
	for size < totalBytes {
		for range nElems(rng) {
			e := []byte(gen(rng))
			err := lp.AppendString(e)
			if errors.Is(err, blob.ErrTooLarge) && lp.Len() > 0 {
				flush(lp)
				err = lp.AppendString(e)
			}
			if errors.Is(err, blob.ErrTooLarge) {
				one := blob.NewListpackWriter(math.MaxUint32)
				err = one.AppendString(e)
				flush(one)
			}
			if err != nil {
				panic(err)
			}
		}
		flush(lp)
	}
	return out
}

func uuid(rng *rand.Rand) string {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], rng.Uint64())
	binary.LittleEndian.PutUint64(b[8:], rng.Uint64())
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

func pick[T any](rng *rand.Rand, xs []T) T { return xs[rng.IntN(len(xs))] }

// zipf-ish choice: low indexes much more likely.
func pickSkewed[T any](rng *rand.Rand, xs []T) T {
	i := int(float64(len(xs)) * rng.Float64() * rng.Float64())
	return xs[i]
}

var (
	queues   = []string{"emails", "webhooks", "billing", "thumbnails", "search-index", "notifications", "exports", "default"}
	jobTypes = []string{"SendWelcomeEmail", "DeliverWebhook", "ChargeSubscription", "ResizeImage", "ReindexDocument",
		"PushNotification", "GenerateCSVExport", "SyncCRMContact", "ExpireSessions", "RecalculateQuota"}
	statuses  = []string{"pending", "running", "succeeded", "failed", "retrying", "scheduled"}
	workers   = []string{"worker-1", "worker-2", "worker-3", "worker-7", "worker-12", "batch-a", "batch-b"}
	regions   = []string{"us-east-1", "us-west-2", "eu-west-1", "ap-southeast-2"}
	templates = []string{"welcome_v2", "password_reset", "invoice_ready", "weekly_digest", "trial_ending"}
	domains   = []string{"example.com", "mail.test", "acme.io", "corp.example.org"}
	errorsMsg = []string{"connection reset by peer", "timeout after 30s", "HTTP 502 Bad Gateway", "card_declined", "rate limited"}
)

// jsonEvents returns listpack nodes of JSON job-queue events.
func jsonEvents(seed uint64, totalBytes int) [][]byte {
	rng := rand.New(rand.NewPCG(seed, 1))
	t := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	gen := func(rng *rand.Rand) string {
		t = t.Add(time.Duration(rng.IntN(2000)) * time.Millisecond)
		status := pickSkewed(rng, statuses)
		s := fmt.Sprintf(`{"id":"%s","queue":"%s","type":"%s","status":"%s","attempts":%d,"max_attempts":%d,"priority":%d,`+
			`"created_at":"%s","enqueued_at":"%s","worker":"%s","region":"%s","payload":{`,
			uuid(rng), pickSkewed(rng, queues), pickSkewed(rng, jobTypes), status, rng.IntN(4), 5, rng.IntN(10),
			t.Format("2006-01-02T15:04:05.000Z"), t.Add(time.Duration(rng.IntN(500))*time.Millisecond).Format("2006-01-02T15:04:05.000Z"),
			pick(rng, workers), pickSkewed(rng, regions))
		switch rng.IntN(4) {
		case 0:
			uid := rng.IntN(5000000)
			s += fmt.Sprintf(`"user_id":%d,"email":"user%d@%s","template":"%s","locale":"%s"`,
				uid, uid, pickSkewed(rng, domains), pickSkewed(rng, templates), pick(rng, []string{"en-US", "de-DE", "fr-FR", "ja-JP"}))
		case 1:
			s += fmt.Sprintf(`"url":"https://hooks.%s/v1/events/%d","event":"%s","signature":"sha256=%016x%016x"`,
				pickSkewed(rng, domains), rng.IntN(100000), pick(rng, []string{"order.created", "order.paid", "user.deleted"}), rng.Uint64(), rng.Uint64())
		case 2:
			s += fmt.Sprintf(`"account_id":"acct_%08x","amount_cents":%d,"currency":"%s","invoice":"in_%012x"`,
				rng.Uint32(), rng.IntN(100000), pickSkewed(rng, []string{"USD", "EUR", "GBP"}), rng.Uint64()&0xffffffffffff)
		default:
			s += fmt.Sprintf(`"object_key":"uploads/%d/%s.jpg","sizes":[64,256,1024],"bucket":"media-%s"`,
				rng.IntN(100000), uuid(rng)[:13], pickSkewed(rng, regions))
		}
		s += "}"
		if status == "failed" || status == "retrying" {
			s += fmt.Sprintf(`,"last_error":"%s"`, pick(rng, errorsMsg))
		}
		return s + "}"
	}
	return packLists(rng, totalBytes, func(r *rand.Rand) int { return 20 + r.IntN(400) }, gen)
}

var (
	paths = []string{"/api/v1/users", "/api/v1/orders", "/api/v2/search", "/static/app.js", "/static/style.css",
		"/healthz", "/login", "/api/v1/products", "/favicon.ico", "/graphql"}
	agents = []string{
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36",
		"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15",
		"curl/8.5.0", "python-requests/2.31.0", "Go-http-client/1.1",
		"Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148",
	}
	hosts    = []string{"web-01", "web-02", "api-03", "db-01", "cache-02"}
	daemons  = []string{"sshd", "cron", "systemd", "kernel", "dockerd", "nginx"}
	methods  = []string{"GET", "GET", "GET", "POST", "PUT", "DELETE"}
	httpCode = []int{200, 200, 200, 200, 304, 201, 404, 500, 302}
)

// logLines returns listpack nodes of nginx access log and syslog lines.
func logLines(seed uint64, totalBytes int) [][]byte {
	rng := rand.New(rand.NewPCG(seed, 2))
	t := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	gen := func(rng *rand.Rand) string {
		t = t.Add(time.Duration(rng.IntN(900)) * time.Millisecond)
		if rng.IntN(3) > 0 {
			q := ""
			if rng.IntN(2) == 0 {
				q = fmt.Sprintf("?page=%d&limit=%d", rng.IntN(50), pick(rng, []int{10, 20, 50, 100}))
			}
			return fmt.Sprintf(`%d.%d.%d.%d - - [%s] "%s %s/%d%s HTTP/1.1" %d %d "-" "%s" rt=%.3f`,
				pick(rng, []int{10, 172, 192, 203}), rng.IntN(256), rng.IntN(256), rng.IntN(256),
				t.Format("02/Jan/2006:15:04:05 -0700"), pickSkewed(rng, methods), pickSkewed(rng, paths), rng.IntN(100000), q,
				pickSkewed(rng, httpCode), rng.IntN(50000), pickSkewed(rng, agents), rng.Float64()*2)
		}
		var msg string
		switch d := pickSkewed(rng, daemons); d {
		case "sshd":
			msg = fmt.Sprintf("sshd[%d]: Accepted publickey for %s from 10.0.%d.%d port %d ssh2: ED25519 SHA256:%016x",
				rng.IntN(60000), pick(rng, []string{"deploy", "root", "ubuntu"}), rng.IntN(256), rng.IntN(256), 30000+rng.IntN(30000), rng.Uint64())
		case "cron":
			msg = fmt.Sprintf("CRON[%d]: (root) CMD (/usr/local/bin/backup.sh --target s3://backups/%d >/dev/null 2>&1)", rng.IntN(60000), rng.IntN(1000))
		case "kernel":
			msg = fmt.Sprintf("kernel: [%d.%06d] TCP: request_sock_TCP: Possible SYN flooding on port %d. Sending cookies.", rng.IntN(1000000), rng.IntN(1000000), pick(rng, []int{80, 443, 6379}))
		default:
			msg = fmt.Sprintf("%s[%d]: Started Session %d of User %s.", d, 1+rng.IntN(3000), rng.IntN(100000), pick(rng, []string{"root", "deploy"}))
		}
		return fmt.Sprintf("%s %s %s", t.Format(time.Stamp), pickSkewed(rng, hosts), msg)
	}
	return packLists(rng, totalBytes, func(r *rand.Rand) int { return 10 + r.IntN(300) }, gen)
}

// smallInts returns small listpacks of small integers and short tokens, like
// many tiny lists of ids.
func smallInts(seed uint64, totalBytes int) [][]byte {
	rng := rand.New(rand.NewPCG(seed, 3))
	gen := func(rng *rand.Rand) string {
		switch rng.IntN(10) {
		case 0:
			return pick(rng, []string{"active", "inactive", "pending", "n/a", "-1"})
		case 1, 2:
			return strconv.Itoa(rng.IntN(100000))
		case 3:
			return strconv.Itoa(1714521600 + rng.IntN(1000000))
		default:
			return strconv.Itoa(rng.IntN(128))
		}
	}
	return packLists(rng, totalBytes, func(r *rand.Rand) int { return 1 + r.IntN(40) }, gen)
}

// dataset is a named synthetic sample set.
type dataset struct {
	name string
	gen  func(seed uint64, totalBytes int) [][]byte
}

var datasets = []dataset{
	{"json-events", jsonEvents},
	{"log-lines", logLines},
	{"small-ints", smallInts},
}
