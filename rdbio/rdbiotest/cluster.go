package rdbiotest

import (
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// ClusterNode is one master of a cluster StartCluster runs.
type ClusterNode struct {
	Conn net.Conn
	Dir  string // its --dir, holding its dbfilename dump.rdb
	ID   string // CLUSTER MYID
	Bus  int    // its cluster bus port on 127.0.0.1
}

// StartCluster runs len(slots) cluster-enabled redis-servers (redis-server
// from PATH, as StartRedis: a unix socket, client port 0, DEBUG allowed)
// whose cluster buses listen on free ports of 127.0.0.1, gives node i the
// slot ranges slots[i] ("0-5460", CLUSTER ADDSLOTSRANGE), introduces them
// (CLUSTER MEET) and waits until the first one's CLUSTER NODES lists every
// master with its slots. It returns the nodes and that listing, and skips
// the test when redis-server is not installed.
func StartCluster(t testing.TB, slots ...[]string) ([]ClusterNode, string) {
	t.Helper()
	nodes := make([]ClusterNode, len(slots))
	for i := range nodes {
		bus := freePort(t)
		conn, dir := StartRedis(t, "--cluster-enabled", "yes", "--cluster-port", strconv.Itoa(bus),
			"--cluster-config-file", "nodes.conf", "--enable-debug-command", "local")
		id := Replies(t, conn, []string{"CLUSTER", "MYID"})[0][0]
		nodes[i] = ClusterNode{Conn: conn, Dir: dir, ID: id, Bus: bus}
		for _, r := range slots[i] {
			first, last, ok := strings.Cut(r, "-")
			if !ok {
				last = first
			}
			Commands(t, conn, []string{"CLUSTER", "ADDSLOTSRANGE", first, last})
		}
	}
	for _, n := range nodes[1:] {
		// The client port is 0 (unix socket only); MEET wants one, and
		// the nodes talk over the bus port alone.
		Commands(t, nodes[0].Conn, []string{"CLUSTER", "MEET", "127.0.0.1", "1", strconv.Itoa(n.Bus)})
	}
	return nodes, waitForMasters(t, nodes[0].Conn, len(nodes))
}

// waitForMasters polls CLUSTER NODES until it lists n masters that serve
// slots, for up to 20 s, and returns it.
func waitForMasters(t testing.TB, conn net.Conn, n int) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		listing := Replies(t, conn, []string{"CLUSTER", "NODES"})[0][0]
		masters := 0
		for _, line := range strings.Split(listing, "\n") {
			if f := strings.Fields(line); len(f) > 8 && strings.Contains(f[2], "master") {
				masters++
			}
		}
		if masters == n {
			return listing
		}
		if time.Now().After(deadline) {
			t.Fatalf("cluster did not form in 20 s:\n%s", listing)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// freePort is a TCP port of 127.0.0.1 that was free a moment ago.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
