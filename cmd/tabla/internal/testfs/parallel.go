package testfs

import (
	"flag"
	"strconv"
)

// Parallel, called by a TestMain before m.Run, lets n of the tests that
// call t.Parallel run at once unless go test's -parallel was given (its
// default is GOMAXPROCS: 2 on the build machine). It is for packages
// whose tests mostly wait — on processes, networks, browsers, a person's
// pace — rather than compute: more of them at once shortens the package's
// wall time for little more CPU (BENCHMARKS.md, "Issue 41").
func Parallel(n int) {
	if !flag.Parsed() {
		flag.Parse()
	}
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		flag.Set("test.parallel", strconv.Itoa(n))
	}
}
