package gpio

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// Config names the pins and buses of a direct-GPIO board. Pin names are
// periph's (GPIO17, or a header position such as P1_11); SPI ports are
// periph's names ("SPI0.0" is /dev/spidev0.0, "" the first port).
type Config struct {
	// Sensors is "matrix" or "74hc165".
	Sensors string
	// Rows and Cols are the matrix pins; sensor index = row×len(Cols)+col.
	Rows, Cols []string
	// ActiveHigh: rows are driven high and columns pulled down. By default
	// rows are driven low one at a time and columns pulled up (a diode from
	// each switch towards its row).
	ActiveHigh bool
	// ShiftSPI, ShiftLatch, ShiftChips, ShiftHz: the 74HC165 chain on an
	// SPI port (MISO and SCLK), its parallel-load pin, how many chips (8
	// sensors each), and the clock [1 MHz].
	ShiftSPI   string
	ShiftLatch string
	ShiftChips int
	ShiftHz    int
	// Debounce is how many equal scans accept a change [3]; ScanHz how
	// often the sensors are scanned [100].
	Debounce int
	ScanHz   int
	// LEDs is "ws2812", "apa102" or "none"; LEDSPI its SPI port, LEDCount
	// the strip length, LEDHz the APA102 clock [4 MHz] (WS2812 is always
	// 2.5 MHz), Brightness a 0–255 scale applied to every colour [255].
	LEDs       string
	LEDSPI     string
	LEDCount   int
	LEDHz      int
	Brightness int
}

func (c *Config) defaults() {
	if c.Debounce <= 0 {
		c.Debounce = 3
	}
	if c.ScanHz <= 0 {
		c.ScanHz = 100
	}
	if c.ShiftHz <= 0 {
		c.ShiftHz = 1_000_000
	}
	if c.LEDHz <= 0 {
		c.LEDHz = 4_000_000
	}
	if c.LEDs == "" {
		c.LEDs = "none"
	}
	if c.Brightness <= 0 || c.Brightness > 255 {
		c.Brightness = 255
	}
}

// Check reports a configuration that cannot work.
func (c *Config) Check() error {
	switch c.Sensors {
	case "matrix":
		if len(c.Rows) == 0 || len(c.Cols) == 0 {
			return fmt.Errorf("gpio: a matrix needs rows and cols")
		}
	case "74hc165":
		if c.ShiftLatch == "" || c.ShiftChips <= 0 {
			return fmt.Errorf("gpio: a 74hc165 chain needs latch and chips")
		}
	default:
		return fmt.Errorf("gpio: sensors %q (want matrix or 74hc165)", c.Sensors)
	}
	switch c.LEDs {
	case "none", "":
	case "ws2812", "apa102":
		if c.LEDCount <= 0 {
			return fmt.Errorf("gpio: %s LEDs need led_count", c.LEDs)
		}
	default:
		return fmt.Errorf("gpio: leds %q (want ws2812, apa102 or none)", c.LEDs)
	}
	return nil
}

// ConfigError says where a config file is wrong.
type ConfigError struct {
	File string
	Line int
	Msg  string
}

func (e *ConfigError) Error() string { return fmt.Sprintf("gpio: %s:%d: %s", e.File, e.Line, e.Msg) }

// ReadConfig reads the [gpio] section of a config file.
func ReadConfig(path string) (Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return Config{}, fmt.Errorf("gpio: %w", err)
	}
	defer f.Close()
	return ParseConfig(path, f)
}

// ParseConfig reads the [gpio] section of a config file: lines
// "key = value", '#' comments, other sections ignored, unknown keys in
// [gpio] refused. Lists are separated by spaces or commas. Keys: sensors,
// rows, cols, active (low|high), shift_spi, latch, chips, shift_hz,
// debounce, scan_hz, leds, led_spi, led_count, led_hz, brightness.
func ParseConfig(name string, r io.Reader) (Config, error) {
	var c Config
	sc := bufio.NewScanner(r)
	line, in, seen := 0, false, false
	keys := map[string]int{}
	for sc.Scan() {
		line++
		text := sc.Text()
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		text = strings.TrimSpace(text)
		if text == "" {
			continue
		}
		if strings.HasPrefix(text, "[") {
			if !strings.HasSuffix(text, "]") {
				return c, &ConfigError{name, line, fmt.Sprintf("bad section header %q", text)}
			}
			in = strings.TrimSpace(text[1:len(text)-1]) == "gpio"
			seen = seen || in
			continue
		}
		if !in {
			continue
		}
		k, v, ok := strings.Cut(text, "=")
		if !ok {
			return c, &ConfigError{name, line, fmt.Sprintf("want key = value, got %q", text)}
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if prev, dup := keys[k]; dup {
			return c, &ConfigError{name, line, fmt.Sprintf("%s given twice (first on line %d)", k, prev)}
		}
		keys[k] = line
		num := func(dst *int) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return &ConfigError{name, line, fmt.Sprintf("%s: want a whole number, got %q", k, v)}
			}
			*dst = n
			return nil
		}
		var err error
		switch k {
		case "sensors":
			c.Sensors = v
		case "rows":
			c.Rows = list(v)
		case "cols":
			c.Cols = list(v)
		case "active":
			switch v {
			case "low":
			case "high":
				c.ActiveHigh = true
			default:
				err = &ConfigError{name, line, fmt.Sprintf("active: want low or high, got %q", v)}
			}
		case "shift_spi":
			c.ShiftSPI = v
		case "latch":
			c.ShiftLatch = v
		case "chips":
			err = num(&c.ShiftChips)
		case "shift_hz":
			err = num(&c.ShiftHz)
		case "debounce":
			err = num(&c.Debounce)
		case "scan_hz":
			err = num(&c.ScanHz)
		case "leds":
			c.LEDs = v
		case "led_spi":
			c.LEDSPI = v
		case "led_count":
			err = num(&c.LEDCount)
		case "led_hz":
			err = num(&c.LEDHz)
		case "brightness":
			err = num(&c.Brightness)
		default:
			err = &ConfigError{name, line, fmt.Sprintf("unknown key %q", k)}
		}
		if err != nil {
			return c, err
		}
	}
	if err := sc.Err(); err != nil {
		return c, fmt.Errorf("gpio: %s: %w", name, err)
	}
	if !seen {
		return c, &ConfigError{name, line, "no [gpio] section"}
	}
	c.defaults()
	if err := c.Check(); err != nil {
		return c, fmt.Errorf("%w (in %s)", err, name)
	}
	return c, nil
}

func list(v string) []string {
	return strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
}
