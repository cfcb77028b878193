// Package envfile reads .env files: KEY=VALUE lines (optionally prefixed with `export`),
// # comments and blank lines.
package envfile

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// Parse reads every KEY=VALUE assignment of r; later assignments win.
func Parse(r io.Reader) (map[string]string, error) {
	vars := map[string]string{}
	scanner := bufio.NewScanner(r)
	for number := 1; scanner.Scan(); number++ {
		line := strings.TrimSpace(scanner.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		key = strings.TrimSpace(key)
		// Files shared with shells write `export KEY=value`; the key is what follows.
		if rest := strings.TrimPrefix(key, "export"); rest != key && strings.TrimLeft(rest, " \t") != rest {
			key = strings.TrimSpace(rest)
		}
		if !ok || key == "" {
			return nil, fmt.Errorf("line %d: expected KEY=VALUE, got %q", number, line)
		}
		vars[key] = unquote(strings.TrimSpace(value))
	}
	return vars, scanner.Err()
}

// unquote removes one pair of matching single or double quotes; `\n` in double quotes is a newline.
func unquote(value string) string {
	if len(value) < 2 || value[0] != value[len(value)-1] {
		return value
	}
	switch value[0] {
	case '\'':
		return value[1 : len(value)-1]
	case '"':
		return strings.ReplaceAll(value[1:len(value)-1], `\n`, "\n")
	}
	return value
}
