package wire

// CRC-16/CCITT-FALSE: polynomial 0x1021, initial value 0xFFFF, no input or
// output reflection, no final XOR. Check value for "123456789" is 0x29B1.
// avr-libc's _crc_xmodem_update seeded with 0xFFFF computes the same CRC.

// CRC16Init is the initial value of a CRC-16/CCITT-FALSE computation, to be
// passed to [UpdateCRC16] before the first byte.
const CRC16Init uint16 = 0xFFFF

// CRC16Check is the CRC-16/CCITT-FALSE of the ASCII string "123456789".
const CRC16Check uint16 = 0x29B1

var crcTable = makeCRCTable()

func makeCRCTable() *[256]uint16 {
	var t [256]uint16
	for i := range t {
		c := uint16(i) << 8
		for range 8 {
			if c&0x8000 != 0 {
				c = c<<1 ^ 0x1021
			} else {
				c <<= 1
			}
		}
		t[i] = c
	}
	return &t
}

// CRC16 returns the CRC-16/CCITT-FALSE of b.
func CRC16(b []byte) uint16 {
	return UpdateCRC16(CRC16Init, b)
}

// UpdateCRC16 continues a CRC-16/CCITT-FALSE computation: it returns the CRC
// of the bytes already summarised by crc followed by b. Start with
// [CRC16Init].
func UpdateCRC16(crc uint16, b []byte) uint16 {
	for _, c := range b {
		crc = crc<<8 ^ crcTable[byte(crc>>8)^c]
	}
	return crc
}
