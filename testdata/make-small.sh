#!/usr/bin/env bash
# Regenerates testdata/small.rdb with a real redis-server (Debian's 7.0):
# a few keys of every common type, lists with raw and LZF quicklist nodes,
# expiries, two dbs. Usage: testdata/make-small.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d)
trap 'redis-cli -s "$dir/sock" shutdown nosave >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT
redis-server --port 0 --unixsocket "$dir/sock" --dir "$dir" --dbfilename small.rdb \
  --save "" --appendonly no --daemonize yes --logfile "$dir/log" --list-compress-depth 1
for _ in $(seq 50); do redis-cli -s "$dir/sock" ping >/dev/null 2>&1 && break; sleep 0.1; done
cli() { redis-cli -s "$dir/sock" "$@" >/dev/null; }
cli set greeting "hello, rdbz"
cli set counter 12345
cli set expiring "goes away in 2100" pxat 4102444800000
for l in events logs; do
  for i in $(seq 1 400); do
    cli rpush "$l:list" "{\"id\":$i,\"type\":\"$l\",\"user\":\"user-$((i % 17))\",\"ts\":\"2026-11-29T10:$((i % 60)):00Z\",\"msg\":\"something happened to item $i\"}"
  done
done
cli rpush small:list a b c 1 2 3
cli hset user:1 name Ada lang Go visits 42
cli sadd tags red green blue
cli sadd ints 1 2 3 5 8 13
cli zadd board 1 alice 2 bob 3.5 carol
cli xadd stream '*' event login user ada
cli -n 1 set other-db value
cli save
cp "$dir/small.rdb" "$here/small.rdb"
echo "wrote $here/small.rdb ($(wc -c <"$here/small.rdb") bytes)"
# testdata/small-format1.rdbz is small.rdb compressed by the format 1 rdbz
# (git revision 0d10586: go build ./cmd/rdbz && ./rdbz compress -o
# testdata/small-format1.rdbz testdata/small.rdb), kept so that tests show
# that older files still decode.
