package convert

import (
	"os"
	"testing"

	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

func TestMain(m *testing.M) { os.Exit(rdbiotest.Main(m)) }
