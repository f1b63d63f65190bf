package universal

import "fmt"

// fmtSscanf is fmt.Sscanf, named for the tests' brevity.
func fmtSscanf(s, format string, args ...any) (int, error) { return fmt.Sscanf(s, format, args...) }
