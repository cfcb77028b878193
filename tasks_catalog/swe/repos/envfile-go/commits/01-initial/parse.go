// Package envfile reads .env files: KEY=VALUE lines, # comments and blank lines.
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
		if !ok || key == "" {
			return nil, fmt.Errorf("line %d: expected KEY=VALUE, got %q", number, line)
		}
		vars[key] = strings.TrimSpace(value)
	}
	return vars, scanner.Err()
}
