// English: every word the client shows, one a line: its id, then its text ({name} filled in, one|many by n; see app.js).
export default `
skip Skip to content
brand Spectrum Online, home
nav Main
navPlay Play
navHistory History
navScore Score
dark Dark theme
missing Page not found
missingText There is no page at this address. A room's link looks like {link}: check it with whoever sent it.
playSpectrum Play Spectrum
finished Finished matches
rules Rules
circle circle
crescent crescent
triangle triangle
square square
star star
violet violet
cyan cyan
yellow yellow
orange orange
red red
numbers numbers
shapes shapes
colours colours
points {p} point|{p} points
noComplete No complete property · {points}
complete {n} complete · {sequence} · {points}
inSequence in sequence: {names}
completeOnes Complete: {names}
e_too_many_requests Too many tries from here; wait a minute.
answered The server answered {status}.
unreachable The server cannot be reached. Check the connection.
e_not_your_turn It is not your turn yet.
e_pile_empty That pile has just run out. Pick another one.
e_knock_not_allowed Someone has already knocked this round.
e_round_over The round has just ended.
e_rate_limited Slow down a little: that was a lot of clicks at once.
e_not_enough_players A match needs at least 2 players.
e_not_host Only the host can do that.
e_card_not_in_hand That card is no longer in your hand.
e_not_a_player Watchers cannot play. Take a seat first.
e_hints_off The host has switched hints off.
e_room_full Every seat is taken.
e_already_started The match has started; you can watch.
e_bad_name A name needs at least one visible character and no control characters.
e_muted The host has muted you.
e_server_full This server holds as many rooms as it can.
e_spectator_chat_off The host has not let spectators chat.
e_no_match There is no match with this address.
e_chat_too_fast Too many messages at once: wait {n} s.
e_chat_empty That message has nothing visible in it.
e_hint_late The table changed while the hint was worked out: ask again.
e_hint_busy The server is too busy to work a hint out: ask again shortly.
e_wrong_step That move does not fit this step of your turn.
e_bad_settings That setting allows at most {n} players: too many are seated.
e_too_large That message is too long to send.
e_chat_too_long A chat message holds at most {n} characters.
e_unknown_reaction That is not one of the quick reactions.
e_wrong_status Not at this point of the match.
e_no_such_seat That seat is no longer there.
e_seat_changed That player left meanwhile: nothing was done.
e_too_many_misses Too many unknown room codes from here; wait a minute.
e_database_unavailable The server's database is unavailable; try again later.
e_moving The server cannot place this room right now; try again in a moment.
e_restoring The server is putting its rooms back: try again in a moment.
e_room_moved The room was closed or moved; try again.
pitch Collect all five numbers, shapes or colours, then line them up. A quick card game for 2 to 6 friends: make a room and share its link.
learn Learn to play
yourName Your name
namePlaceholder What friends call you
newRoom New room
settingsColon Settings: {summary}
creating Creating…
create Create a room
joinRoom Join a room
roomCode Room code
joining Joining…
join Join
yourRooms Back to your rooms
nameFirst First enter your name.
codeShape A room code has 8 letters and digits, like K7QM-2XPD.
fullWatching Every seat is taken: you are watching.
startedWatching That match has started: you are watching.
noRoom There is no room {code}. Check the code with your friends.
nameTakenHome Someone in that room already has your name. Change it above and join again.
off Off
seconds {n} seconds
secondsShort {n} s
minutes {n} minutes
rounds Rounds
timer Turn timer
multi Multiple pickups
multiText Take 1 to 5 cards a turn
ten 10-card Spectrum
tenText Two hands; 2 to 4 players
hints Hints
hintsText Players may ask for a suggested move
seats Seats
players {n} players
nRounds {n} round|{n} rounds
turns {time} turns
noTimer no timer
multiShort multiple pickups
tenShort 10 cards
noHints no hints
online online
away away
computer computer
host host
you you
removeName Remove {name}
remove Remove
addBot Add a computer player
easy Easy
normal Normal
strong Strong
easyBot Easy bot
normalBot Normal bot
strongBot Strong bot
free One seat free|{n} seats free
start Start the match
oneMore Waiting for at least one more player. Share the link!
waitHost Waiting for {name} to start the match.
waitTheHost Waiting for the host to start the match.
nowHost You are the host now.
hostNow {name} is the host now.
leave Give up my seat
takeSeat Take a seat
watchingYou You are watching. {n} person watching.|You are watching. {n} people watching.
room Room {code}
invite Invite friends with this code or link
loopback This link works on this computer only. Start the server with {host} and {url} so friends on your network can join.
address this computer's address
copy Copy link
share Share…
qr QR code of the room's link
playersTitle Players
nOf {n} of {of}
settings Settings
upTo up to {n} players
timeUnknown time left unknown while disconnected
timeLeft time left
theDiscard the discard pile
pileN pile {n}
and and
semi {a}; {b}
took {who} took {cards}
tookYou You took {cards}
cardFrom {card} from {pile}
discarded {who} discarded {cards}
discardedYou You discarded {cards}
knocked {who} knocked
knockedYou You knocked
moves Moves this round
movesLabel Moves this round, newest first
noMoves No moves yet.
recap {away}, this was played for you: {moves}.
away2 While you were away
then then
cards {n} card|{n} cards
nPoints {p} points
dealer dealer
knockedBadge knocked
computerPlayer computer player
standin a bot is playing for them
onTurn on turn
botPlaying bot playing
pts {p} pts
pickPiles Your turn: pick 1 to 5 piles
takeCard Your turn: take a card
discardN Discard {n} cards
discardOne Now discard a card
yourTurn Your turn…
botFor A bot is playing for {name}
discarding {name} is discarding
playing {name} is playing
turnsLeft {n} turn left|{n} turns left
discardPile Discard pile
pile Pile {n}
turning turning over
emptyPile empty
discardWord discard
nWatching {n} watching
roundOf Round {n} of {of}
roundEnd Round {n} of {of}: {ending}
tableTitle Room {code}, round {n} of {of}
botForYou A bot is playing for you: you were away, or out of time twice running.
back I'm back
others The other players, in turn order
piles Piles
watchingMatch You are watching this match.
justTaken just taken
yourHandN Your hand {n}, in its best order
handN Hand {n}
handScore Hand {n}: {score}
pickToDiscard Pick {n} cards to discard
tapDiscard {tap} a card to discard it
yourHandBest Your hand, in its best order
yourHand Your hand
You You
hintIs Hint: {text}
thinking Thinking…
hint Hint
knockQ Knock?
knockWith Knock with this hand{points}? Everyone else gets one more turn.
knock Knock
notYet Not yet
tapPileKnock {tap} a pile to take its top card, or knock.
tapPile {tap} a pile to take its top card.
click Click
tap Tap
pickThenTake Pick the piles to take from, then take.
takeN Take {n} card|Take {n} cards
takeCards Take cards
clear Clear
lastOnTop The last card you pick goes on top of the discard pile.
discardOf Discard {n}/{of}
ranOut The draw piles ran out
handOf {name}'s hand
total total {p}
handsOf Hands of round {n}
isReady Ready ✓
ready Ready for the next round
nextIn Next round in {time}
readyNames ready: {names}
waitingFor waiting for {names}
place place {n}
placeShared place {n}, shared
tie A tie: {names}
wins {name} wins!
series Series
rematch Rematch
hostRematch The host can start a rematch.
wholeMatch The whole match
home Home
placeH Place
player Player
pointsH Points
notCode That is not a room code
toStart Back to the start
backOnline Back online: reconnected, and the table is up to date.
reconnected Reconnected: the table is up to date.
seatN Seat {n}
notConnected Not connected right now. Reconnecting…
yourTurnTitle Your turn
waitTurn Wait for your turn: {name} is playing.
discardFirst First choose what to discard from your hand.
takeFirst First take a card from a pile.
timedOut Out of time: your turn was played for you.
shareTitle Play Spectrum with me
roundsRange Rounds go from 1 to 50.
nameToSit Enter your name to take a seat.
nameTaken Someone here is already called {name}. Try another name.
copied Link copied. Send it to your friends!
close Close
joiningRoom Joining room {code}…
offline You are offline.
offlineText A room needs the network: the table is paused here until it is back; this page then reconnects by itself.
backReconnecting Back online. Reconnecting…
lost Connection lost. Reconnecting in {seconds} s…
tryNow Try now
reconnecting Reconnecting…
disconnected Disconnected
closedText The connection closed.
closed4001 This seat is no longer yours
closedText4001 The seat this browser held in the room is gone. You can still watch.
closed4002 The server did not understand this page
closedText4002 Reload the page to try again.
closed4004 There is no room with this code
closedText4004 Check the code with your friends. A room closes some time after everyone has left.
closed4009 You are playing in another tab
closedText4009 This seat was opened in another tab or on another device.
closed4010 The host removed you from the room
closedText4010 You can still watch, or ask the host for a seat again.
closed4011 The room was closed
closedText4011 Start a new room from the home page.
playHere Play here
watch Watch the room
sound Sound
e_not_saved The server can't save right now; your move is waiting. Play resumes once it is saved.
hintTake take {card} from {pile}
hintDiscard discard {cards}
hintKnock knock now
hintKeep {moves}: your hand makes {points}.
hintAim {moves}: aim for {points}.
react React with {reaction}
say Say something…
send Send
chat Chat
spectator Spectator
noMessages No messages yet.
said {who}:
mute Mute
unmute Unmute
isMuted muted
muteName Mute {name}
unmuteName Unmute {name}
chatSettings Chat settings
letWatchers Let spectators chat
botSits A computer player sits down…
roundOver The round is over
scored Your hand scored {points}. Now start a room and share its link with friends.
realRoom Start a real room
botPlays The computer is playing…
knockNow Your hand scores {points}: knock to end the round.
discardGlow Now discard the glowing card.
takeGlow Your turn: take the glowing card.
aSequence A {sequence}: {points} points. Complete properties whose cards also run in order make a Mono (one), Duo (two) or Tripo (three).
explain Each card has a number, a shape and a colour; a property is complete when your 5 cards show all five of its values. Marked: your different {property}, {n} to find ({missing}). Until then a hand scores −5.
numbersTitle Numbers
shapesTitle Shapes
coloursTitle Colours
ofFive {n} of 5 different
calculator Score calculator
pickMore Pick {cards}.
moreCards {n} more card|{n} more cards
pickMoreTen Pick {cards} for a 10-card hand, or remove some.
pickFive Pick 5 cards.
scoring Scoring…
bestSplit {score}: the best split into two hands
handBest Hand {n}, best order
bestOrder Best order
bestOrderIs Best order:
calcText Pick 5 cards, or 10 for the 10-card game, to see their best score. Handy with real TIC cards too.
chosen Chosen cards
chosenLabel Chosen cards (select one to remove it)
colour Colour
colourCards {colour} cards
handsShown The scoring hands, as cards
rulesFailed The rules could not be loaded ({error}). Check the connection and try again.
loadingRules Loading the rules…
tryCalc Try hands in the score calculator
noKey without a key
match Match
loading Loading…
notFound Not found
allMatches All matches
nobody Nobody called {name} has played a round here yet.
nothing Nothing here.
roundsOf {done} of {n} round|{done} of {n} rounds
wonBy won by {names}
unfinished unfinished
more Show more
playerName Player name
findPlayer Find a player by name
find Find
recent Recent matches
noMatch No match has been played here yet. Start one from the home page!
leaderboard Leaderboard
winsH Wins
matchesH Matches
perRound Points per hand
avg Avg
byWins By wins, then points per hand (Avg).
notAccounts Names are not accounts: people of one name are told apart by a private key their browser keeps. Computer players are not ranked.
finishToAppear Finish a match to appear here.
bestCards Cards in their best order
roomLow room {code}
won {names} won
unfinishedMatch Unfinished match
roundsPlayed {done} of {n} round played|{done} of {n} rounds played
csv Download CSV
checked Fair deal, checked in this browser
roundN Round {n}
dealt {name} dealt
fairDeal Fair deal
seed Seed
commitment Commitment (SHA-256 of the seed)
personKey Names are not accounts: one person who played as {name} from a browser that keeps its key.
personNoKey Names are not accounts: everyone who played as {name} without a key.
othersAs Others who played as {name}:
nMatches {n} match|{n} matches
matchesStat match|matches
winsStat win|wins
roundsStat round|rounds
perRoundStat points per hand
bestHand Best hand: {p} points
bestTen Best 10-card hand: {p} points
roundOfMatch Round {n} of this match
noMatches No matches yet.
noCrypto Checking the deals needs a secure (https) page.
badSeen Round {n}: this browser was shown the commitment {seen} at the table, not the one stored.
badHash Round {n}: the revealed seed does not match the commitment shown before the round (the seed's SHA-256 is {got}, the commitment {shown}).
badTop Round {n}, move {m}: the seed puts {card} on top of {pile}, but {said} was taken.
badEnd Round {n}: {name}'s hand rebuilt from the seed is {got}, but the stored one is {kept}.
fixed ✓ This deal was fixed before the round began.
first First move
prev Back
next Next
last Last move
replay Replay
noReplay This round was stored before moves were kept: it has no replay.
movesFailed The moves of round {n} could not be loaded.
move Move
moveOf Move {m} of {of}
discardShort Discard
linkMove Link to this move
keys In the replay: ← → step, Home and End jump.
otherLang Français
history History
`;
