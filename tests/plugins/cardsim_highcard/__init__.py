"""High card: a toy game that plugs into cardsim from outside it (see docs/adding-a-game.md).

The 52 cards are shuffled and dealt round the table (a card left over at three seats is put
aside). Each trick, every seat turns its top card; the highest rank (aces high) takes the
trick, and a tie for the highest takes nobody. When the hands are empty, the seat with the
most tricks wins; a tie for the most is a drawn game.
"""
