package deploy

import (
	"encoding/xml"
	"net"
	"os"
	"regexp"
	"strconv"
	"testing"
)

// TestAvahiService: the Avahi service file is well-formed and announces
// _http._tcp on the port the config example listens on, with the path of
// the live page.
func TestAvahiService(t *testing.T) {
	data, err := os.ReadFile("tabla.service.avahi")
	if err != nil {
		t.Fatal(err)
	}
	var sg struct {
		XMLName xml.Name `xml:"service-group"`
		Name    struct {
			Text     string `xml:",chardata"`
			Wildcard string `xml:"replace-wildcards,attr"`
		} `xml:"name"`
		Services []struct {
			Type string   `xml:"type"`
			Port int      `xml:"port"`
			TXT  []string `xml:"txt-record"`
		} `xml:"service"`
	}
	if err := xml.Unmarshal(data, &sg); err != nil {
		t.Fatalf("tabla.service.avahi: %v", err)
	}
	conf, err := os.ReadFile("tabla.conf.example")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^listen = (\S+)`).FindSubmatch(conf)
	if m == nil {
		t.Fatal("tabla.conf.example sets no listen address")
	}
	host, port, err := net.SplitHostPort(string(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	if host != "0.0.0.0" {
		t.Errorf("the config example listens on %s: the phones on the LAN cannot reach it", host)
	}
	want, _ := strconv.Atoi(port)
	if len(sg.Services) != 1 || sg.Services[0].Type != "_http._tcp" || sg.Services[0].Port != want ||
		len(sg.Services[0].TXT) != 1 || sg.Services[0].TXT[0] != "path=/" || sg.Name.Wildcard != "yes" {
		t.Errorf("service file %+v, want _http._tcp on port %d with path=/", sg, want)
	}
}
