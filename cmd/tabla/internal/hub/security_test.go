package hub

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/tabla-board/tabla/cmd/tabla/internal/hub/link"
	"github.com/tabla-board/tabla/engine/record"
)

// permErrs collects a connection's asynchronous permission errors.
type permErrs struct {
	mu   sync.Mutex
	errs []string
}

func (p *permErrs) handler(_ *nats.Conn, _ *nats.Subscription, err error) {
	p.mu.Lock()
	p.errs = append(p.errs, err.Error())
	p.mu.Unlock()
}

func (p *permErrs) saw(sub string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, e := range p.errs {
		if strings.Contains(e, sub) {
			return true
		}
	}
	return false
}

// TestPermissions: a table publishes only on its own subjects, the
// spectator only reads, a wrong password is refused, nobody but the admin
// changes the streams.
func TestPermissions(t *testing.T) {
	t.Parallel()
	th := startHub(t)
	alpha := th.tableURL("alpha")
	th.tableURL("beta")
	v := openVTable(t, alpha, "alpha", t.TempDir(), record.Header{Game: "gyges"}, "", 1)
	steps(t, 2, v)
	waitFor(t, "alpha's game", 10*time.Second, func() bool { return th.hub.Game("alpha", GameID(v.sess.JournalPath())) != nil })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// a denied request gets no answer: give it a second
	short := func() context.Context {
		c, cancel := context.WithTimeout(ctx, time.Second)
		t.Cleanup(cancel)
		return c
	}

	conn := func(u string) (*nats.Conn, jetstream.JetStream, *permErrs) {
		pe := &permErrs{}
		nc, err := nats.Connect(u, nats.ErrorHandler(pe.handler), nats.CustomInboxPrefix(Inbox(link.TableName(u))))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nc.Close)
		js, _ := jetstream.New(nc)
		return nc, js, pe
	}
	// a table: its own subjects only
	nc, js, pe := conn(alpha)
	if _, err := js.Publish(ctx, RecSubject("alpha", "x"), []byte(`{"n":0}`)); err != nil {
		t.Fatalf("alpha publishing its own record: %v", err)
	}
	nc.Publish(RecSubject("beta", "x"), []byte(`{"n":0}`))
	nc.Publish(LiveSubject("beta"), []byte(`{}`))
	nc.Flush()
	waitFor(t, "the permission errors", 5*time.Second, func() bool {
		return pe.saw(`Permissions Violation for Publish to "tabla.rec.beta.x"`) && pe.saw(`"tabla.live.beta"`)
	})
	if err := js.DeleteStream(short(), StreamGames); err == nil {
		t.Fatal("a table deleted the games' stream")
	}
	if _, err := js.CreateOrUpdateStream(short(), jetstream.StreamConfig{Name: "X", Subjects: []string{"x.>"}}); err == nil {
		t.Fatal("a table created a stream")
	}
	// but it reads every game (remote play)
	if _, err := lastEventOf(ctx, js, "alpha", GameID(v.sess.JournalPath())); err != nil {
		t.Fatalf("alpha reading its game: %v", err)
	}

	// the spectator reads, publishes nothing
	c, _ := LoadCredentials(th.dir)
	snc, sjs, spe := conn(UserURL("nats://"+th.addr, "spectator", c.Spectator))
	if _, err := lastEventOf(ctx, sjs, "alpha", GameID(v.sess.JournalPath())); err != nil {
		t.Fatalf("the spectator reading a game: %v", err)
	}
	sub, err := snc.SubscribeSync(LiveSubject("alpha"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sub.NextMsg(10 * time.Second); err != nil {
		t.Fatalf("the spectator following a live status: %v", err)
	}
	snc.Publish(RecSubject("alpha", "y"), []byte(`{}`))
	snc.Flush()
	waitFor(t, "the spectator's permission error", 5*time.Second, func() bool { return spe.saw("Permissions Violation for Publish") })
	if err := sjs.DeleteStream(short(), StreamGames); err == nil {
		t.Fatal("the spectator deleted the games' stream")
	}

	// a wrong password
	if _, err := nats.Connect(UserURL("nats://"+th.addr, "alpha", "wrong")); err == nil || !strings.Contains(strings.ToLower(err.Error()), "authorization") {
		t.Fatalf("a wrong password: %v", err)
	}
	// nats.conf holds no password in clear
	conf, err := os.ReadFile(filepath.Join(th.dir, "nats.conf"))
	if err != nil {
		t.Fatal(err)
	}
	for _, pw := range []string{c.Admin, c.Spectator, c.Tables["alpha"]} {
		if strings.Contains(string(conf), pw) {
			t.Fatal("nats.conf holds a password in clear")
		}
	}
}

func lastEventOf(ctx context.Context, js jetstream.JetStream, table, game string) (int, error) {
	n, _, err := link.LastEvent(ctx, js, RecSubject(table, game))
	if err == nil && n < 0 {
		err = errors.New("no event")
	}
	return n, err
}

// TestTLS: a hub with a certificate speaks TLS only; a table that trusts
// its authority publishes, one that does not is refused.
func TestTLS(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	caPEM, certPEM, keyPEM := testCerts(t)
	ca, cert, key := filepath.Join(dir, "ca.pem"), filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(ca, caPEM, 0o644)
	os.WriteFile(cert, certPEM, 0o644)
	os.WriteFile(key, keyPEM, 0o600)
	c, err := LoadCredentials(dir)
	if err != nil {
		t.Fatal(err)
	}
	pw, _ := c.AddTable("alpha")
	c.Save(dir)
	srv, err := StartServer(ServerConfig{Dir: dir, Listen: "127.0.0.1:0", TLSCert: cert, TLSKey: key, Logger: testLog(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	if !strings.HasPrefix(srv.ClientURL(), "tls://") {
		t.Fatalf("client URL %s", srv.ClientURL())
	}
	h, err := Open(Options{URL: srv.URL("admin", c.Admin), CA: ca, Dir: dir, EvalTime: -1, Logger: testLog(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	waitFor(t, "the hub over TLS", 20*time.Second, h.Ready)
	th := &testHub{t: t, dir: dir, hub: h}
	u := srv.URL("alpha", pw)
	if _, err := nats.Connect(u); err == nil {
		t.Fatal("a table that does not trust the hub's authority connected")
	}
	if _, err := nats.Connect(strings.Replace(u, "tls://", "nats://", 1)); err == nil {
		t.Fatal("a table connected without TLS")
	}
	ln, err := link.Connect(link.TableOptions{URL: u, CA: ca, JournalDir: t.TempDir(), Logger: testLog(t)})
	if err != nil {
		t.Fatal(err)
	}
	ln.Close(0)
	v := &vtable{t: t, name: "alpha", dir: t.TempDir(), url: u, h: record.Header{Game: "star", First: "red"}, seed: 3}
	v.rng = newRand(3)
	v.caFile = ca
	v.open()
	t.Cleanup(v.close)
	play(t, 5000, v)
	hubMoves(t, th, "alpha", v)
}

// testCerts makes a CA and a certificate for 127.0.0.1 signed by it.
func testCerts(t testing.TB) (caPEM, certPEM, keyPEM []byte) {
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "tabla test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true,
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "tabla hub"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caTmpl, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	kder, _ := x509.MarshalECPrivateKey(key)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})
}
