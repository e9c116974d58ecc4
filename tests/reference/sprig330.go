package main

// What Sprig v3.3.0 (the version Helm v3.21 links) adds to the Sprig 3.2.3 the oracle is built
// from (Debian's golang-github-masterminds-sprig-dev): sha512sum, in crypto.go of v3.3.0.
// Its merge functions already use mergo 1.0.1 here (scripts/peers.sh's GOPATH overlay).
// camelcase (xstrings v1.5.0's ToPascalCase) is not reproduced: cases state Helm's output.

import (
	"crypto/sha512"
	"encoding/hex"
	"text/template"
)

func sprig330(f template.FuncMap) {
	f["sha512sum"] = func(input string) string {
		hash := sha512.Sum512([]byte(input))
		return hex.EncodeToString(hash[:])
	}
}
