package v1

import (
	"os"
	"testing"

	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// TestMain stops the redis-server rdbiotest.Digest shares between tests.
func TestMain(m *testing.M) { os.Exit(rdbiotest.Main(m)) }
