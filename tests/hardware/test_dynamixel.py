"""Dynamixel 1.0 packets: the AX-12 manual's own examples, checksums, stream splitting."""

import pytest

from blocksim.hardware import dynamixel as dx


def test_the_manuals_read_temperature_example():
    # AX-12 manual: "read the internal temperature of the Dynamixel with ID 1"
    assert dx.instruction_packet(1, dx.INS_READ_DATA, [0x2B, 0x01]) == bytes.fromhex(
        "FFFF0104022B01CC"
    )
    # the answer: 32 deg C
    assert dx.status_packet(1, 0, [0x20]) == bytes.fromhex("FFFF01030020DB")


def test_ping_and_led_examples():
    assert dx.instruction_packet(1, dx.INS_PING) == bytes.fromhex("FFFF010201FB")
    assert dx.status_packet(1) == bytes.fromhex("FFFF010200FC")
    assert dx.instruction_packet(1, dx.INS_WRITE_DATA, [0x19, 0x01]) == bytes.fromhex(
        "FFFF0104031901DD"
    )


def test_checksum_is_the_complement_of_the_low_byte_of_the_sum():
    body = [0xFE, 0x07, 0x03, 0x1E, 0x00, 0x02, 0x00]  # sum 0x128, low byte 0x28
    assert dx.checksum(body) == 0xD7


def test_fields_out_of_range_are_refused_with_the_field_named():
    with pytest.raises(dx.PacketError, match="servo id"):
        dx.instruction_packet(256, 2)
    with pytest.raises(dx.PacketError, match="parameter"):
        dx.instruction_packet(1, 3, [30, 300])
    with pytest.raises(dx.PacketError, match="253"):
        dx.instruction_packet(1, 3, [0] * 254)


def test_stream_parser_splits_packets_and_text_fed_byte_by_byte():
    stream = b"servo 1: 512\r\n" + dx.status_packet(1, 0, [0x20]) + b"ok" + dx.status_packet(253)
    parser = dx.StreamParser()
    packets = []
    for b in stream:
        packets += parser.feed(bytes([b]))
    assert [(p.id, p.error, p.params) for p in packets] == [(1, 0, b"\x20"), (253, 0, b"")]
    assert parser.take_text() == "servo 1: 512\r\nok"
    assert packets[0].raw == dx.status_packet(1, 0, [0x20])


def test_a_bad_checksum_is_reported_and_parsing_goes_on():
    good = dx.status_packet(2, 0, [0x00, 0x02])
    bad = bytearray(dx.status_packet(1, 0, [0x20]))
    bad[-1] ^= 0xFF
    parser = dx.StreamParser()
    with pytest.raises(dx.ChecksumError, match="expected 0xDB") as info:
        parser.feed(bytes(bad) + good)
    assert info.value.raw == bytes(bad)
    (p,) = parser.feed(b"")
    assert p.id == 2 and p.word(0) == 512


def test_the_error_byte_is_in_the_status_checksum():
    # RTB's MATLAB receive() leaves it out; a servo reporting an error (0x20 overload) puts it in
    pkt = dx.status_packet(3, 0x20, [])
    assert pkt[-1] == (~(3 + 2 + 0x20)) & 0xFF
    (p,) = dx.StreamParser().feed(pkt)
    assert p.error == 0x20


def test_a_device_side_parser_returns_a_bad_packet_marked_invalid():
    # a servo answers a bad checksum with the checksum error bit: it must see the packet
    good = dx.instruction_packet(1, dx.INS_PING)
    bad = good[:-1] + bytes([good[-1] ^ 1])
    parser = dx.StreamParser(strict=False)
    packets = parser.feed(bad + good)
    assert [(p.id, p.code, p.valid) for p in packets] == [(1, 1, False), (1, 1, True)]
    assert packets[0].raw == bad
    with pytest.raises(dx.ChecksumError):
        dx.StreamParser().feed(bad)


def test_error_bits_names_and_meanings():
    assert dx.error_names(0x0C) == ["overheating", "range"]
    assert dx.error_text(0x84) == "error 0x84 (overheating, unknown)"
    assert "address 11" in dx.error_meaning(dx.ERR_OVERHEATING)
    assert dx.REFUSED | dx.ALARMS == 0x7F and not dx.REFUSED & dx.ALARMS
