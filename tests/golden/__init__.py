"""Golden records: committed small runs that every later version must reproduce exactly."""
