package listcodec

import "github.com/rdbz/rdbz/listcodec/flow"

// Flow configures how Compress and Decompress read and work (package
// flow: the settings format 1's pipeline shares).
type Flow = flow.Flow
