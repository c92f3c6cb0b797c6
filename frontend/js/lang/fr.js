export default `
skip Aller au contenu
brand Spectrum Online, accueil
nav Principal
navPlay Jouer
navHistory Parties
navScore Score
dark Thème sombre
missing Page introuvable
missingText Aucune page à cette adresse. Un lien de salle ressemble à {link} : vérifiez-le avec qui vous l’a envoyé.
playSpectrum Jouer à Spectrum
finished Parties terminées
rules Règles
circle cercle
crescent croissant
triangle triangle
square carré
star étoile
violet violet
cyan cyan
yellow jaune
orange orange
red rouge
numbers nombres
shapes formes
colours couleurs
points {p} point|{p} points
noComplete Aucune propriété complète · {points}
complete {n} complète · {sequence} · {points}|{n} complètes · {sequence} · {points}
inSequence en ordre : {names}
completeOnes Complètes : {names}
e_too_many_requests Trop d’essais depuis cette adresse : attendez une minute.
answered Le serveur a répondu {status}.
unreachable Le serveur est injoignable. Vérifiez la connexion.
e_not_your_turn Ce n’est pas encore votre tour.
e_pile_empty Cette pile vient de s’épuiser. Choisissez-en une autre.
e_knock_not_allowed Quelqu’un a déjà frappé dans cette manche.
e_round_over La manche vient de se terminer.
e_rate_limited Doucement : beaucoup de clics d’un coup.
e_not_enough_players Une partie demande au moins 2 joueurs.
e_not_host Seul l’hôte peut faire cela.
e_card_not_in_hand Cette carte n’est plus dans votre main.
e_not_a_player Les spectateurs ne jouent pas : prenez une place.
e_hints_off L’hôte a désactivé les indices.
e_room_full Toutes les places sont prises.
e_already_started La partie a commencé ; vous pouvez regarder.
e_bad_name Un nom demande au moins un caractère visible, sans caractère de contrôle.
e_muted L’hôte vous a rendu muet.
e_server_full Ce serveur ne peut pas tenir plus de salles.
e_spectator_chat_off L’hôte n’a pas permis aux spectateurs de discuter.
e_no_match Aucune partie à cette adresse.
e_chat_too_fast Trop de messages d’un coup : attendez {n} s.
e_chat_empty Ce message n’a rien de visible.
e_hint_late La table a changé pendant le calcul du conseil : redemandez-le.
e_hint_busy Le serveur est trop occupé pour calculer un conseil : redemandez dans un instant.
e_wrong_step Ce coup ne correspond pas à cette étape de votre tour.
e_bad_settings Ce réglage accepte au plus {n} joueurs : trop sont déjà assis.
e_too_large Ce message est trop long pour être envoyé.
e_chat_too_long Un message compte au plus {n} caractères.
e_unknown_reaction Ce n’est pas une des réactions rapides.
e_wrong_status Pas à ce moment de la partie.
e_no_such_seat Cette place n’existe plus.
e_seat_changed Ce joueur est parti entre-temps : rien n’a été fait.
e_too_many_misses Trop de codes inconnus depuis cette adresse : attendez une minute.
e_database_unavailable La base de données est indisponible : réessayez plus tard.
e_moving Le serveur ne peut pas placer cette salle pour l’instant : réessayez dans un instant.
e_restoring Le serveur remet ses salles en place : réessayez dans un instant.
e_room_moved La salle a été fermée ou déplacée : réessayez.
pitch Réunissez les cinq nombres, formes ou couleurs, puis alignez-les. Un jeu de cartes rapide pour 2 à 6 amis : créez une salle et partagez son lien.
learn Apprendre à jouer
yourName Votre nom
namePlaceholder Comme on vous appelle
newRoom Nouvelle salle
settingsColon Réglages : {summary}
creating Création…
create Créer une salle
joinRoom Rejoindre une salle
roomCode Code de la salle
joining Connexion…
join Rejoindre
yourRooms Retour à vos salles
nameFirst Saisissez d’abord votre nom.
codeShape Un code de salle a 8 lettres et chiffres, comme K7QM-2XPD.
fullWatching Toutes les places sont prises : vous regardez.
startedWatching Cette partie a commencé : vous regardez.
noRoom Aucune salle {code}. Vérifiez le code avec vos amis.
nameTakenHome Votre nom est déjà pris dans cette salle. Changez-le ci-dessus et réessayez.
off Aucun
seconds {n} secondes
secondsShort {n} s
minutes {n} minutes
rounds Manches
timer Minuteur du tour
multi Prises multiples
multiText Prendre 1 à 5 cartes par tour
ten Spectrum à 10 cartes
tenText Deux mains ; 2 à 4 joueurs
hints Indices
hintsText Les joueurs peuvent demander un coup conseillé
seats Places
players {n} joueurs
nRounds {n} manche|{n} manches
turns tours de {time}
noTimer sans minuteur
multiShort prises multiples
tenShort 10 cartes
noHints sans indices
online en ligne
away absent
computer ordinateur
host hôte
you vous
removeName Retirer {name}
remove Retirer
addBot Ajouter un joueur ordinateur
easy Facile
normal Moyen
strong Fort
easyBot Bot facile
normalBot Bot moyen
strongBot Bot fort
free Une place libre|{n} places libres
start Lancer la partie
oneMore Il faut encore au moins un joueur. Partagez le lien !
waitHost {name} va lancer la partie.
waitTheHost L’hôte va lancer la partie.
nowHost Vous êtes l’hôte maintenant.
hostNow {name} est l’hôte maintenant.
leave Quitter ma place
takeSeat Prendre une place
watchingYou Vous regardez. {n} personne regarde.|Vous regardez. {n} personnes regardent.
room Salle {code}
invite Invitez vos amis avec ce code ou ce lien
loopback Ce lien ne marche que sur cet ordinateur. Lancez le serveur avec {host} et {url} pour accueillir vos amis du réseau.
address adresse de cet ordinateur
copy Copier le lien
share Partager…
qr QR code du lien de la salle
playersTitle Joueurs
nOf {n} sur {of}
settings Réglages
upTo jusqu’à {n} joueurs
timeUnknown temps restant inconnu (déconnecté)
timeLeft temps restant
theDiscard la défausse
pileN la pile {n}
and et
semi {a} ; {b}
took {who} a pris {cards}
tookYou Vous avez pris {cards}
cardFrom {card} dans {pile}
discarded {who} a défaussé {cards}
discardedYou Vous avez défaussé {cards}
knocked {who} a frappé
knockedYou Vous avez frappé
moves Coups de la manche
movesLabel Coups de la manche, le plus récent en premier
noMoves Pas encore de coups.
recap {away}, on a joué pour vous : {moves}.
away2 Pendant votre absence
then puis
cards {n} carte|{n} cartes
nPoints {p} points
dealer donneur
knockedBadge a frappé
computerPlayer joueur ordinateur
standin un bot joue à sa place
onTurn à son tour
botPlaying bot aux commandes
pts {p} pts
pickPiles À vous : choisissez 1 à 5 piles
takeCard À vous : prenez une carte
discardN Défaussez {n} cartes
discardOne Défaussez maintenant une carte
yourTurn À vous…
botFor Un bot joue pour {name}
discarding {name} défausse
playing {name} joue
turnsLeft {n} tour restant|{n} tours restants
discardPile Défausse
pile Pile {n}
turning se retourne
emptyPile vide
discardWord dé­fausse
nWatching {n} spectateur|{n} spectateurs
roundOf Manche {n}/{of}
roundEnd Manche {n} sur {of} : {ending}
tableTitle Salle {code}, manche {n} sur {of}
botForYou Un bot joue pour vous : absence, ou deux tours manqués.
back Je suis de retour
others Les autres joueurs, dans l’ordre du jeu
piles Piles
watchingMatch Vous regardez cette partie.
justTaken prise à l’instant
yourHandN Votre main {n}, dans son meilleur ordre
handN Main {n}
handScore Main {n} : {score}
pickToDiscard Choisissez {n} cartes à défausser
tapDiscard {tap} une carte pour la défausser
yourHandBest Votre main, dans son meilleur ordre
yourHand Votre main
You Vous
hintIs Conseil : {text}
thinking Réflexion…
hint Conseil
knockQ Frapper ?
knockWith Frapper avec cette main{points} ? Les autres ont encore un tour.
knock Frapper
notYet Pas encore
tapPileKnock {tap} une pile pour prendre sa carte du dessus, ou frappez.
tapPile {tap} une pile pour prendre sa carte du dessus.
click Cliquez sur
tap Touchez
pickThenTake Choisissez les piles où prendre, puis prenez.
takeN Prendre {n} carte|Prendre {n} cartes
takeCards Prendre
clear Effacer
lastOnTop La dernière carte choisie sera sur le dessus de la défausse.
discardOf Défausser {n}/{of}
ranOut Les pioches sont épuisées
handOf Main : {name}
total total {p}
handsOf Mains de la manche {n}
isReady Prêt ✓
ready Prêt pour la manche suivante
nextIn Manche suivante dans {time}
readyNames prêts : {names}
waitingFor on attend {names}
place place {n}
placeShared place {n}, ex æquo
tie Égalité : {names}
wins {name} gagne !
series Série
rematch Revanche
hostRematch L’hôte peut lancer une revanche.
wholeMatch Toute la partie
home Accueil
placeH Place
player Joueur
pointsH Points
notCode Ce n’est pas un code de salle
toStart Retour à l’accueil
backOnline De retour en ligne : reconnecté, et la table est à jour.
reconnected Reconnecté : la table est à jour.
seatN Place {n}
notConnected Pas connecté. Reconnexion…
yourTurnTitle À vous
waitTurn Attendez votre tour : {name} joue.
discardFirst Choisissez d’abord quoi défausser de votre main.
takeFirst Prenez d’abord une carte sur une pile.
timedOut Temps écoulé : votre tour a été joué.
shareTitle Joue à Spectrum avec moi
roundsRange Les manches vont de 1 à 50.
nameToSit Saisissez votre nom pour prendre une place.
nameTaken Quelqu’un ici s’appelle déjà {name}. Essayez un autre nom.
copied Lien copié. Envoyez-le à vos amis !
close Fermer
joiningRoom Connexion à la salle {code}…
offline Vous êtes hors ligne.
offlineText Une salle a besoin du réseau : la page se reconnecte seule à son retour.
backReconnecting De retour en ligne. Reconnexion…
lost Connexion perdue. Reconnexion dans {seconds} s…
tryNow Réessayer
reconnecting Reconnexion…
disconnected Déconnecté
closedText La connexion s’est fermée.
closed4001 Cette place n’est plus la vôtre
closedText4001 La place de ce navigateur n’existe plus. Vous pouvez encore regarder.
closed4002 Le serveur n’a pas compris cette page
closedText4002 Rechargez la page pour réessayer.
closed4004 Aucune salle avec ce code
closedText4004 Vérifiez le code avec vos amis. Une salle ferme quelque temps après le départ de tous.
closed4009 Vous jouez dans un autre onglet
closedText4009 Cette place a été ouverte dans un autre onglet ou appareil.
closed4010 L’hôte vous a retiré de la salle
closedText4010 Vous pouvez encore regarder, ou redemander une place à l’hôte.
closed4011 La salle a été fermée
closedText4011 Créez une nouvelle salle depuis l’accueil.
playHere Jouer ici
watch Regarder la salle
sound Son
e_not_saved Enregistrement impossible pour l’instant : votre coup attend ; le jeu reprend une fois enregistré.
hintTake prenez {card} dans {pile}
hintDiscard défaussez {cards}
hintKnock frappez maintenant
hintKeep {moves} : votre main vaut {points}.
hintAim {moves} : visez {points}.
react Réagir avec {reaction}
say Votre message…
send Envoyer
chat Discussion
spectator Spectateur
noMessages Pas encore de messages.
said {who} :
mute Rendre muet
unmute Rendre la parole
isMuted muet
muteName Rendre {name} muet
unmuteName Rendre la parole à {name}
chatSettings Réglages de la discussion
letWatchers Laisser les spectateurs discuter
botSits Un joueur ordinateur s’installe…
roundOver La manche est finie
scored Votre main a marqué {points}. Créez une salle et partagez son lien avec vos amis.
realRoom Créer une vraie salle
botPlays L’ordinateur joue…
knockNow Votre main vaut {points} : frappez pour finir la manche.
discardGlow Défaussez maintenant la carte qui brille.
takeGlow À vous : prenez la carte qui brille.
aSequence Un {sequence} : {points} points. Des propriétés complètes dont les cartes se suivent aussi font un Mono (une), Duo (deux) ou Tripo (trois).
explain Chaque carte a un nombre, une forme et une couleur ; une propriété est complète quand vos 5 cartes montrent ses cinq valeurs. En surbrillance : vos {property}, il en manque {n} ({missing}). D’ici là une main vaut −5.
numbersTitle Nombres
shapesTitle Formes
coloursTitle Couleurs
ofFive {n} sur 5 valeurs
calculator Calculateur de score
pickMore Choisissez {cards}.
moreCards encore {n} carte|encore {n} cartes
pickMoreTen Choisissez {cards} pour une main de 10, ou retirez-en.
pickFive Choisissez 5 cartes.
scoring Calcul…
bestSplit {score} : le meilleur partage en deux mains
handBest Main {n}, meilleur ordre
bestOrder Meilleur ordre
bestOrderIs Meilleur ordre :
calcText Choisissez 5 cartes (10 au jeu à 10 cartes) pour voir leur meilleur score. Pratique aussi avec de vraies cartes TIC.
chosen Cartes choisies
chosenLabel Cartes choisies (choisissez-en une pour la retirer)
colour Couleur
colourCards Cartes de couleur {colour}
handsShown Les mains qui marquent, en cartes
rulesFailed Impossible de charger les règles ({error}). Vérifiez la connexion et réessayez.
loadingRules Chargement des règles…
tryCalc Essayer des mains au calculateur de score
noKey sans clé
match Partie
loading Chargement…
notFound Introuvable
allMatches Toutes les parties
nobody {name} n’a encore joué aucune manche ici.
nothing Rien ici.
roundsOf {done} sur {n} manche|{done} sur {n} manches
wonBy gagnée par {names}
unfinished inachevée
more Voir plus
playerName Nom du joueur
findPlayer Nom d’un joueur
find Chercher
recent Parties récentes
noMatch Aucune partie n’a encore été jouée ici. Lancez-en une depuis l’accueil !
leaderboard Classement
winsH Victoires
matchesH Parties
perRound Points par main
avg Moy.
byWins Par victoires, puis points par main (Moy.).
notAccounts Les noms ne sont pas des comptes : des homonymes se distinguent par la clé secrète de leur navigateur. Les bots ne sont pas classés.
finishToAppear Finissez une partie pour apparaître ici.
bestCards Cartes dans leur meilleur ordre
roomLow salle {code}
won {names} a gagné|{names} ont gagné
unfinishedMatch Partie inachevée
roundsPlayed {done} sur {n} manche jouée|{done} sur {n} manches jouées
csv Télécharger en CSV
checked Donne équitable, vérifiée dans ce navigateur
roundN Manche {n}
dealt {name} a distribué
fairDeal Donne équitable
seed Graine
commitment Engagement (SHA-256 de la graine)
personKey Les noms ne sont pas des comptes : une personne ayant joué sous le nom {name} depuis un navigateur gardant sa clé.
personNoKey Les noms ne sont pas des comptes : tous ceux ayant joué sous le nom {name} sans clé.
othersAs D’autres ayant joué sous le nom {name} :
nMatches {n} partie|{n} parties
matchesStat partie|parties
winsStat victoire|victoires
roundsStat manche|manches
perRoundStat points par main
bestHand Meilleure main : {p} points
bestTen Meilleure main de 10 : {p} points
roundOfMatch Manche {n} de cette partie
noMatches Pas encore de parties.
noCrypto Vérifier les donnes demande une page sécurisée (https).
badSeen Manche {n} : ce navigateur a vu à la table l’engagement {seen}, pas celui enregistré.
badHash Manche {n} : la graine révélée ne correspond pas à l’engagement affiché avant la manche (SHA-256 de la graine : {got}, engagement : {shown}).
badTop Manche {n}, coup {m} : la graine met {card} sur le dessus de {pile}, mais {said} a été pris.
badEnd Manche {n}, {name} : la main refaite depuis la graine est {got}, mais celle enregistrée est {kept}.
fixed ✓ Cette donne était fixée avant le début de la manche.
first Premier coup
prev Précédent
next Suivant
last Dernier coup
replay Rejeu
noReplay Cette manche date d’avant l’enregistrement des coups : pas de rejeu.
movesFailed Impossible de charger les coups de la manche {n}.
move Coup
moveOf Coup {m} sur {of}
discardShort Défausse
linkMove Lien vers ce coup
keys Dans le rejeu : ← → pour avancer, Début et Fin pour sauter.
otherLang English
history Historique
`;
