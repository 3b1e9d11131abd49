"""Value helpers shared by the native converter and the Python layer."""
import datetime


class Timestamp(datetime.datetime):
    """A datetime with nanosecond precision (pandas.Timestamp's `nanosecond` attribute):
    what to_pylist returns for TIMESTAMP(7..9) values that are not a whole microsecond."""

    __slots__ = ("nanosecond",)

    def __reduce__(self):
        return (_nano_timestamp, (datetime.datetime(*self.timetuple()[:6], self.microsecond, self.tzinfo),
                                  self.nanosecond))

    def __repr__(self):
        return "paimon_c.Timestamp(%s, nanosecond=%d)" % (datetime.datetime.__repr__(self), self.nanosecond)


def _nano_timestamp(dt, nanosecond):
    t = Timestamp(dt.year, dt.month, dt.day, dt.hour, dt.minute, dt.second, dt.microsecond, dt.tzinfo)
    t.nanosecond = nanosecond
    return t
