"""Competing memories for the identity benchmark: short sentences about *other* people that share
the identities' subjects (values, stances, household rules, jobs at similarly named places,
hobbies, goals, relationships) plus ordinary everyday facts.

    from competitors import competing_memories
    memories = competing_memories(10_000)          # 10,000 distinct sentences, 8 to 30 words
    assert memories == competing_memories(100_000)[:10_000]

The stream is deterministic for a seed and does not depend on ``n``: a smaller ``n`` is a prefix of
a larger one. Standard library only. No sentence names the four agents, the people they serve or
anyone else named in their files (``EXCLUDED_NAMES``), and no organisation is spelled exactly as an
identity's own (``EXCLUDED_ORGS``): the memories compete on topic, never restate an identity's fact.
"""

from __future__ import annotations

import random
import re
import string

__all__ = ["competing_memories", "TEMPLATES", "EXCLUDED_NAMES", "EXCLUDED_ORGS"]

# Everyone named in the identity files: never a subject here.
EXCLUDED_NAMES = frozenset(
    """
    Wren Kestrel Juno Tally Bram Kiki Tern Fenwick Penny Pim Frost
    Ines Joost Lucas Mira Graça Graca Sander Ana Els Yusuf Hanneke Mariza
    Astrid Erik Sunniva Ole Ingrid Ravi Jonas Henrik Lotte Marit
    Callum Hannah Isla Dougie Gareth Priya Nia Tom Tamsin Marianne
    Nadia Karim Layla Sami Fadi Tomasz Owen Beth Joanna
    Carvalho Verhoeven Ribeiro Wit Bos Holm Nygaard Menon Albers Aas Brink Solberg
    Price Lowe Nair Osei Dupuis Haddad Wójcik Fairley Marsh Reed
    """.split()
)

# The identities' own organisations: similar names compete, these exact ones never appear.
EXCLUDED_ORGS = frozenset(
    {
        "Wilhelmina Hospital",
        "De Kromme Rijn Lyceum",
        "Kromme Rijn Lyceum",
        "HC Kampong",
        "Nordlys Polar Institute",
        "Bremerhaven Ocean Centre",
        "Sheffield Phoenix CC",
        "Spoke & Chain",
        "Cadence Lab",
        "Sheffield Physio Hub",
        "Rye & Salt Bakery",
        "Bright & Co",
        "Bright & Co Accountants",
        "Kin Café",
        "Harbourside Deli",
        "Shipton Mill",
        "Northern General Hospital",
    }
)


def _words(text: str) -> tuple[str, ...]:
    return tuple(w for w in text.split() if w not in EXCLUDED_NAMES)


def _lines(text: str) -> tuple[str, ...]:
    return tuple(line.strip() for line in text.strip().splitlines() if line.strip())


FIRST_NAMES = _words(
    """
    Aafke Aaron Abdul Ada Adaeze Adriana Afonso Agnes Ahmed Aida Aiko Aino Aisha Akira Alba Albert
    Aleksander Alejandro Alessia Alexis Alfie Alice Alina Alma Amara Amber Amina Amir Amos Anders
    Andrea Andrei Anika Anita Anja Anneke Anouk Ansel Antje Anton Arjun Arne Arthur Asha Aslak
    Astra Aurelio Ayaan Ayla Babajide Barbara Bas Beatriz Benedikt Bengt Bernardo Bianca Birgit
    Bjørn Blessing Bodil Boris Bruno Camila Carlos Carmen Casper Cato Cecilie Cem Chiara Chidi
    Chloe Clara Colm Conor Cora Cristina Daan Dalia Damian Dana Daniela Dara David Dawit Dean
    Deniz Diego Dilan Dina Dirk Dominika Duarte Ebba Eduardo Efe Eilidh Einar Eleni Elif Eliza
    Elliot Emeka Emil Emma Enzo Erin Esme Esra Ethan Eva Ewa Fabian Farah Fatima Felix Femke
    Filipa Finn Fiona Flora Francesca Frida Gabriel Gemma Georg Gerrit Gianni Gideon Gil Greta
    Gunnar Guus Hakon Hamza Hana Hasan Hedda Heidi Helga Hugo Ida Idris Ifeoma Ilse Imogen Inge
    Iris Irene Isak Ivan Ivo Jade Jakob Jamal Jan Jasmijn Javier Jelle Jesper Jin Joana Joel
    Johanna Jorge Josefine Julia Julian Kaan Kai Kalinda Kamal Karin Kasia Kemi Kenji Kieran
    Kirsten Klaas Kofi Lara Lars Laura Leif Lena Leo Leonor Liam Lidia Lieke Lina Linnea Liv
    Lorenzo Luca Luisa Lukas Lydia Maarten Madalena Magnus Mai Malak Malin Manon Marco Margarida
    Mariam Marius Marta Mateus Mathilde Matteo Maud Maya Mehmet Meike Mei Miguel Mikkel Milan
    Mina Miriam Moana Mohammed Morten Nadine Naomi Nathan Nicolás Niels Nika Nils Noa Noor Nora
    Obi Olga Olivia Omar Oona Oskar Otto Paola Patrícia Pedro Petra Pieter Pilar Quentin Rafael
    Rana Rasmus Rebecca Reza Rhiannon Rik Rita Robin Roisin Rosa Ruben Rui Rune Ruth Saoirse Sara
    Sebastian Selin Senna Shira Signe Silvia Simone Sina Siri Sofia Solveig Stefan Stine Sven
    Talia Tariq Teresa Thijs Thora Tiago Tiril Tobias Tove Ugo Ulla Vera Vidar Viktor Vilde
    Wanjiru Wiebe Willem Xavier Yara Yasmin Yusra Zainab Zara Zeynep Zoë Zofia Aleksy Bartek
    Grzegorz Halina Jarek Kuba Marek Agata Dorota Rafał Wiktoria Ahmad Ghada Hadi Rami Rania
    Samir Walid Ziad Nour Lamis Anand Deepa Kavya Rohan Sanjay Shreya Vikram Meera Aditi Kunal
    Ngozi Tunde Chioma Kwame Abena Yaw Akosua Thandiwe Sipho Lerato Mandla Aroha Tane Mereana
    Siobhan Declan Niamh Padraig Aisling Ciaran Fionnuala Morag Hamish Iona Alasdair Catriona
    Gwen Dylan Emrys Cerys Bethan Rhys Harri Lowri
    """
)

SURNAMES = _words(
    """
    Abbott Achterberg Adeyemi Ahmadi Alves Amundsen Andersen Antunes Arnesen Azevedo Bakker
    Barbosa Barros Beaumont Berg Bergstrom Bjerke Blom Boateng Brandt Brouwer Byrne Caldwell
    Campos Castro Chowdhury Clarke Cohen Costa Cruz Dahl Dekker Dias Duarte Dunne Eide Eriksen
    Evans Fagerli Falk Farouk Ferreira Fischer Fonseca Fraser Gallagher Garcia Gomes Greenwood
    Gunnarsen Haaland Hagen Halvorsen Hansen Hartley Hendriks Henriksen Hoekstra Hughes Iqbal
    Jacobs Jakobsen Jansen Johansen Jovanovic Kaur Kelly Khan Khoury Kowalski Kristiansen Kuipers
    Larsen Lindqvist Lopes Lund Machado Maguire Mahmoud Martins Meijer Mendes Moen Molina Monteiro
    Moreira Morgan Mulder Murphy Myhre Nascimento Nielsen Novak Nowak Nunes Obi Okafor Okonkwo
    Olsen Owusu Patel Pedersen Pereira Peters Pinto Postma Quinn Rahman Ramos Rasmussen Reis
    Ritter Rocha Rodrigues Rossi Saad Santos Schouten Sharma Silva Smit Soares Sousa Strand
    Sullivan Svensson Tavares Teixeira Thorsen Tiwari Torres Valente Van Dijk Vermeulen Visser
    Vos Walsh Wang Watts Wiśniewski Yilmaz Zielinski Østby Akhtar Bianchi Blackwood Chaudhry
    Dijkstra Doherty Eklund Frost Fuglesang Gunn Hedlund Ibsen Kamara Lambert Laursen Mackay
    Mensah Nakamura Oyelaran Pham Quist Rowe Sandvik Tran Ueda Vik Whitaker Yamamoto Zwart
    Abara Brennan Coelho Dalgaard Elsayed Fitzgerald Gjerde Hashemi Ingebrigtsen Jaramillo
    Kowalczyk Lindberg Madsen Nakashima Oduya Petrov Rinaldi Skaug Tesfaye Urquhart Varga
    """.replace("Van Dijk", "Van_Dijk")
)
SURNAMES = tuple(s.replace("_", " ") for s in SURNAMES if s not in {"Frost"})

CITIES = _words(
    """
    Utrecht Amersfoort Zeist Houten Nieuwegein Rotterdam Leiden Haarlem Delft Arnhem Nijmegen Porto
    Braga Coimbra Lisbon Aveiro Tromsø Bodø Bergen Trondheim Oslo Harstad Narvik Alta Sheffield
    Keswick Kendal Leeds Manchester Chesterfield Buxton Hathersage Bristol Bath Clevedon Bedminster
    Stroud Gloucester Cardiff Beirut Byblos Kochi Annecy Grenoble Girona Hobart Bremerhaven Bremen
    Seattle Reykjavík Galway Cork Edinburgh Inverness Ghent Antwerp Aarhus Malmö Gothenburg Kraków
    """
)
STREETS = _lines(
    """
    Kanaalstraat
    Amsterdamsestraatweg
    Oudegracht
    Biltstraat
    Twijnstraat
    Storgata
    Grønnegata
    Rua de Santa Catarina
    Rua das Flores
    Abbeydale Road
    Ecclesall Road
    Sharrow Vale Road
    Division Street
    North Street
    Cheltenham Road
    Stokes Croft
    Whiteladies Road
    Wells Road
    Hamad Street
    Elm Grove
    Station Road
    Mill Lane
    Church Street
    Harbour Walk
    """
)
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTHS = tuple("January February March April May June July August September October November December".split())
TIMES = tuple(
    "6:00 6:30 7:00 7:15 7:45 8:00 8:30 9:00 12:30 16:00 17:00 17:30 18:00 19:00 19:30 20:00 21:00 21:30 22:00".split()
)
SEASONS = (
    "the summer holidays",
    "the winter months",
    "the school term",
    "the dark season",
    "Ramadan",
    "the Christmas break",
    "the spring term",
    "the autumn half-term",
)


def _orgs(prefixes: str, suffixes: str, sep: str = " ") -> tuple[str, ...]:
    out = []
    for p in _lines(prefixes):
        for s in _lines(suffixes):
            name = f"{p}{sep}{s}"
            if p != s and p not in s and s not in p and not any(org in name for org in EXCLUDED_ORGS):
                out.append(name)
    return tuple(out)


# Workplaces that sound like the identities' own.
HOSPITALS = _orgs(
    "Wilhelmus\nWillem-Alexander\nSint Antonius\nDiakonessen\nMeander\nNorthern\nSouthern\nHallamshire\nWeston\nSouthmead\nCoastal\nFjord",
    "Hospital\nClinic\nGeneral Hospital\nMedical Centre\nChildren's Hospital",
)
SCHOOLS = _orgs(
    "Vecht\nLeidsche Rijn\nOudegracht\nKromme Rijn\nAmstel\nRietveld\nEemland\nBisschop\nNorth Bristol\nTapton\nHigh Storrs",
    "Lyceum\nCollege\nGymnasium\nAcademy\nPrimary School",
)
INSTITUTES = _orgs(
    "Nordkapp\nNordlys\nBarents\nSvalbard\nBoreal\nAurora\nFram\nLofoten\nHardanger\nSkagerrak",
    "Polar Research Centre\nClimate Institute\nOcean Lab\nIce Research Station\nMarine Institute\nPolar Science Institute",
)
CLUBS = _orgs(
    "Sheffield\nHallamshire\nPeak\nDon Valley\nDerwent\nRivelin\nPhoenix\nKeswick\nEden Valley\nAvon",
    "Wheelers\nVelo\nRoad Club\nCycling Club\nFalcon CC\nPhoenix Wheelers\nRiders",
)
BAKERIES = _orgs(
    "Rye\nSalt\nCrumb\nBarley\nSpelt\nEmber\nHearth\nYeast\nFlour\nCrust",
    "Salt Bakery\nCrumb Bakehouse\nRye Kitchen\nButter Bakery\nHoney Bakehouse\nLoaf Co",
    sep=" & ",
)
FIRMS = _orgs(
    "Bright\nBrightwell\nClear\nHarbour\nClifton\nAvon\nRedland\nCotham\nSevern",
    "& Co Accountants\nAccountancy\nBookkeeping\nTax Partners\n& Sons Accountants",
)
CAFES = _lines(
    """
    Kith Café
    Kiln Café
    Kin Kitchen
    Harbour Deli
    Harbourside Kitchen
    Grindle Café
    Station Café
    The Corner Deli
    Lombok Koffiehuis
    Café Rijnzicht
    Kaffebrenneriet Nord
    Café do Bolhão
    """
)
MILLS = _lines(
    """
    Shipton Grain Co
    Stoneground Mills of Severn
    Cotswold Flour
    Wessex Mill
    Chew Valley Mill
    Doves Stoneground
    Avon Grain
    """
)
UNIVERSITIES = _lines(
    """
    Utrecht University
    the University of Porto
    the University of Bergen
    UiT The Arctic University of Norway
    the University of Sheffield
    the University of Bristol
    the University of Leeds
    the University of Coimbra
    Wageningen University
    the American University of Beirut
    the University of Tasmania
    the University of Edinburgh
    """
)

JOBS = (
    ("hospital pharmacist", HOSPITALS),
    ("pharmacy technician", HOSPITALS),
    ("radiographer", HOSPITALS),
    ("ward nurse", HOSPITALS),
    ("sports physio", HOSPITALS),
    ("GP", HOSPITALS),
    ("physics teacher", SCHOOLS),
    ("maths teacher", SCHOOLS),
    ("primary-school head teacher", SCHOOLS),
    ("school timetabler", SCHOOLS),
    ("sea-ice modeller", INSTITUTES),
    ("ocean modeller", INSTITUTES),
    ("research assistant", INSTITUTES),
    ("data manager", INSTITUTES),
    ("press officer", INSTITUTES),
    ("glaciologist", INSTITUTES),
    ("postdoc", INSTITUTES),
    ("cycling coach", CLUBS),
    ("ride captain", CLUBS),
    ("bike mechanic", CLUBS),
    ("club treasurer", CLUBS),
    ("head baker", BAKERIES),
    ("pastry chef", BAKERIES),
    ("morning-shift baker", BAKERIES),
    ("bookkeeper", FIRMS),
    ("accountant", FIRMS),
    ("payroll clerk", FIRMS),
    ("barista", CAFES),
    ("café manager", CAFES),
    ("miller", MILLS),
    ("delivery driver", MILLS),
)

# value, what the person does about it (third person, present tense)
VALUES = (
    ("privacy", "keeps the children's photos off every social network"),
    ("fairness between siblings", "gives each child the same pocket money to the cent"),
    ("punctuality", "arrives ten minutes early to everything"),
    ("food waste", "freezes leftovers in labelled tubs every evening"),
    ("thrift", "buys clothes second-hand from the charity shop"),
    ("neighbourliness", "takes in parcels for the whole street"),
    ("reliability", "writes every promise into a paper diary"),
    ("plain speaking", "tells colleagues bluntly when a plan will not work"),
    ("sleep", "turns the wifi off at ten every night"),
    ("reproducibility", "publishes the code behind every figure on GitHub"),
    ("intellectual honesty", "corrects published mistakes within a week"),
    ("open data", "posts raw measurements online the month they are collected"),
    ("clear writing", "cuts every draft by a third before sending it"),
    ("credit for students", "puts every student helper on the author list"),
    ("low-carbon travel", "takes the night train to every conference in Europe"),
    ("calibrated uncertainty", "quotes every projection with error bars"),
    ("rider safety", "fits a rear radar and daytime lights on every bike"),
    ("consistency", "trains the same six hours every week, rain or shine"),
    ("recovery", "takes a full week off the bike every two months"),
    ("long-term health", "sees a physio twice a year even when nothing hurts"),
    ("the joy of riding", "leaves the bike computer at home on Sundays"),
    ("honest feedback", "gives teammates a straight answer after every race"),
    ("accuracy", "checks the till against the card machine twice a day"),
    ("paying suppliers on time", "settles every invoice within a week"),
    ("fair pay", "pays the café staff well above the minimum wage"),
    ("local sourcing", "buys only from farms within 50 miles"),
    ("prudence", "keeps six months of costs in a savings account"),
    ("transparency", "shows staff the shop's monthly accounts"),
    ("keeping records", "scans every receipt the day it arrives"),
    ("family time", "keeps Saturdays free of work emails"),
    ("independence", "refuses to borrow money from relatives"),
    ("courtesy", "answers every email within a working day"),
)

# topic, a clause for it, a clause against it
STANCES = (
    (
        "screen time for children",
        "should stop at one hour on school nights",
        "matters less than what the children actually watch",
    ),
    (
        "smart speakers in bedrooms",
        "are harmless with the microphone switched off",
        "are an open invitation to eavesdropping",
    ),
    ("meal kits", "save a busy family hours every week", "cost far too much per portion"),
    ("paying children for chores", "teaches them that work earns money", "turns family life into a transaction"),
    ("cargo bikes", "can replace a family car in a flat city", "stop being practical once the children turn ten"),
    ("dynamic energy contracts", "pay off for households with a home battery", "are a gamble in a cold winter"),
    ("supermarket loyalty apps", "are worth it for the discounts", "sell your shopping habits to advertisers"),
    ("homework in primary school", "builds good habits early", "should be abolished altogether"),
    ("big birthday parties", "are a childhood memory worth the money", "put too much pressure on parents"),
    ("chore rotas", "stop arguments between siblings", "are too rigid for a busy family"),
    ("cooking from scratch", "is cheaper than any ready meal", "is unrealistic for parents working shifts"),
    ("nuclear power", "is the fastest way off coal", "is too risky for a small country"),
    ("carbon dioxide removal", "will be needed at enormous scale", "is a distraction from cutting emissions"),
    ("solar geoengineering", "should be researched urgently", "should be banned outright"),
    ("open peer review", "makes reviewers more careful", "frightens junior reviewers into silence"),
    ("preregistration", "should be compulsory for attribution studies", "slows exploratory science down"),
    ("carbon offsets", "are a reasonable stopgap for flights", "are mostly greenwashing"),
    ("an ice-free Arctic summer", "could arrive as early as the 2030s", "is still several decades away"),
    ("alarming climate headlines", "are needed to wake people up", "make people give up"),
    ("single-model attribution studies", "are good enough for a press release", "should never make the news"),
    ("machine-written papers", "are fine if the science is checked", "should be banned from journals"),
    ("polarised training", "is the best use of limited hours", "only suits professionals with time to spare"),
    ("sweet-spot training", "gives amateurs the most fitness per hour", "leaves riders tired all the time"),
    ("fasted rides", "teach the body to burn fat", "are a recipe for bonking"),
    ("power meters", "are worth every penny", "are an expensive distraction for beginners"),
    ("e-bikes on club rides", "keep older riders in the club", "spoil the point of a club run"),
    ("ketogenic diets", "help endurance riders stay lean", "wreck performance at race pace"),
    ("cycle helmets", "should be compulsory on every road", "should stay a personal choice"),
    ("Strava segments", "make solo training more fun", "encourage reckless descending"),
    ("professional bike fits", "are essential before buying a bike", "are overpriced for casual riders"),
    ("altitude tents", "give amateurs a real edge", "are a waste of money"),
    ("tubeless tyres", "are worth the extra fuss", "are messy and overrated"),
    ("cash accounting", "is simplest for a small shop", "hides what customers still owe"),
    ("buy-now-pay-later finance", "helps small shops buy equipment", "is a debt trap"),
    ("crypto payments", "are the future of retail", "are far too volatile for a shop"),
    ("a four-day week", "cuts sick days", "cannot work with early baking shifts"),
    ("card-only trading", "saves an hour of counting the till", "shuts out older customers"),
    ("delivery apps", "bring in new customers", "take far too big a cut"),
    ("zero-hours contracts", "give students the flexibility they want", "are unfair on staff"),
    ("surprise price rises", "are sometimes unavoidable", "lose loyal customers"),
    ("working from home", "makes parents more productive", "weakens a team over time"),
    ("school uniforms", "save families money", "are an outdated expense"),
)
STANCE_VERBS_PRO = ("believes", "is convinced", "thinks", "argues", "keeps saying", "insists")
STANCE_VERBS_CON = (
    "doubts that the case is made and says",
    "suspects",
    "is certain",
    "has long argued",
    "told the group",
)

HOUSE_RULES = _lines(
    """
    phones stay in the hall during dinner
    shoes come off at the front door
    nobody brings nuts into the house
    the youngest is in bed by 19:30
    Sunday mornings are kept free of appointments
    the dog is walked before anyone has breakfast
    chores rotate every Monday
    there is no television on school nights
    pocket money is paid on Friday evenings
    guests are given slippers at the door
    the car is only used when it rains
    nobody starts the washing machine after 22:00
    bikes are kept in the shed, never the hallway
    everyone eats together on Wednesday evenings
    the children pack their own school bags the night before
    no one answers the phone during meals
    the last person up turns off the heating
    sweets are only allowed on Saturdays
    the fridge is cleared out every Thursday before the shop
    homework is done before any screens go on
    birthday presents are capped at 25 euros
    visitors are asked to give three days' notice
    every new food is written down because of an allergy
    the thermostat never goes above 19 degrees
    """
)
WORK_RULES = _lines(
    """
    no manuscript goes out until every co-author has signed off
    every claim in a grant needs two sources
    raw data is shared with partners within a month
    nobody flies to a meeting shorter than three days
    unsold bread goes to the food bank at closing time
    staff may spend up to 40 pounds without asking
    the shop is closed on Tuesdays
    tips are split by hours worked
    the till is counted by two people every evening
    no hard sessions are scheduled the day after a night shift
    the Saturday ride leaves at 8:00 sharp and waits for nobody
    the no-drop ride regroups at the top of every climb
    every figure must use a colour-blind safe palette
    invoices are chased at 7, 14 and 30 days
    """
)
PREF_VERBS = ("prefers", "loves", "likes", "enjoys", "dislikes", "can't stand", "swears by", "hates")
PREF_ITEMS = _lines(
    """
    oat milk in coffee
    soy milk in tea
    bacalhau à Brás
    fado records
    pancakes on Sunday mornings
    paper birthday cards
    early morning runs
    last-minute plans
    phone calls in the evening
    cross-country skiing
    strong black coffee from a moka pot
    Nordic crime novels
    LaTeX over Word
    MATLAB over Python
    bullet-point summaries
    slide animations
    meetings before nine
    the polar night
    Peak District climbs
    flapjack on long rides
    caffeinated energy gels
    café stops on Sunday rides
    indoor riding on Zwift
    Shimano groupsets
    SRAM groupsets
    Tour de France highlights
    rye sourdough with caraway
    Lebanese coffee with cardamom
    swimming in cold lakes
    paper bags over plastic
    WhatsApp voice notes
    long email threads
    written lists
    coriander in everything
    spreadsheets over accounting software
    round numbers in reports
    """
)
WHENS = (
    "especially in winter",
    "at least twice a week",
    "since a trip to Porto",
    "whatever the weather",
    "more than anyone else in the family",
    "on long weekends",
    "according to their partner",
    "ever since university",
    "when work gets stressful",
    "on the first day of every holiday",
)
HOBBIES = _lines(
    """
    sings in a community choir
    plays hockey
    runs along the river
    swims at the outdoor lido
    rides the club's Saturday run
    skis on the floodlit trails
    bakes sourdough
    plays handball
    does parkrun
    climbs at the bouldering wall
    volunteers at the food bank
    goes fell running
    plays chess online
    tends an allotment
    """
)
GOALS = _lines(
    """
    run the Utrecht half marathon in under two hours
    run the Porto marathon
    ride the Fred Whitton Challenge
    finish L'Étape du Tour
    ski the Birkebeinerrennet
    tour the North Coast 500 by bike
    ride the Dirty Reiver gravel race
    win an ERC Starting Grant
    become a full professor
    take a sabbatical in Hobart
    publish a data paper on ocean moorings
    halve the team's conference flights
    open a second bakery
    start a bread-making school
    build a three-month cash buffer
    pay off the business loan early
    cut the grocery bill to 150 euros a week
    install a heat pump
    save up for a cargo bike
    clear out the attic
    learn Portuguese properly
    renew an expired passport
    get accredited as a Living Wage Employer
    reach an FTP of 300 watts
    lose four kilos for the spring sportives
    teach the kids to cook one dinner a week
    spend a whole month offline
    visit family in Beirut every summer
    """
)
RELATIONS = (
    "sister",
    "brother",
    "cousin",
    "neighbour",
    "best friend",
    "business partner",
    "landlord",
    "accountant",
    "physio",
    "PhD supervisor",
    "riding partner",
    "godmother",
    "colleague",
    "flatmate",
    "mother-in-law",
    "ex-husband",
    "former student",
    "training partner",
    "deputy",
    "uncle",
    "aunt",
)
AGENT_NAMES = _words(
    "Sparrow Robin Finch Heron Otter Pebble Willow Hazel Juniper Ledger Quill Abacus Compass Lark Plover Dipper Merlin Corvid Sorrel Bramble"
)
AGENT_KINDS = (
    "household agent",
    "research agent",
    "training agent",
    "bookkeeping agent",
    "scheduling agent",
    "nutrition agent",
    "shopping agent",
    "procurement agent",
)
AGENT_TASKS = (
    "plan the family's meals",
    "keep the school calendar",
    "track training load",
    "chase late invoices",
    "book GP appointments",
    "run the weekly data download",
    "order flour every night",
    "pay the household bills",
    "sort the reference library",
    "remind everyone about bin day",
    "plan the Saturday shop",
)
EVENTS = _lines(
    """
    a kitchen renovation
    a crash on a wet descent
    a late VAT return
    a missed water bill
    a peanut reaction at a party
    a retracted paper
    a knee injury
    the energy price spike
    a broken collarbone
    a data-protection review
    a house move across town
    a flooded cellar
    a burst pipe in January
    a cancelled field season
    a new baby
    a redundancy
    """
)
BREEDS = ("beagle", "border collie", "labrador", "spaniel", "dachshund", "whippet", "Norwegian elkhound", "terrier")
PET_NAMES = _words(
    "Bolt Koekje Max Luna Biscuit Olive Tapas Sprocket Fjord Mosse Kebab Ziggy Doris Bonnie Fudge Pepper"
)
SPORTIVES = (
    "Fred Whitton Challenge",
    "Étape du Tour",
    "Dragon Ride",
    "Tour of the Peak",
    "Marmotte",
    "Ride London",
    "Cheshire Cat",
    "Amstel Gold Race sportive",
)
JOURNALS = (
    "The Cryosphere",
    "Geophysical Research Letters",
    "Journal of Climate",
    "Ocean Science",
    "Earth System Science Data",
    "Nature Climate Change",
    "Journal of Glaciology",
)
LOAVES = (
    "a rye sourdough",
    "a seeded spelt loaf",
    "a country white",
    "a ka'ak ring",
    "a cardamom bun",
    "a gluten-free loaf",
    "a baguette",
    "a focaccia",
)
PURCHASES = (
    "a new dishwasher",
    "a second-hand cargo bike",
    "a power meter",
    "a turbo trainer",
    "a combi oven",
    "a dough sheeter",
    "a heat-pump survey",
    "winter tyres",
    "a new laptop",
    "school shoes for two children",
)
VEHICLES = ("car", "van", "cargo bike", "e-bike", "camper van")
GARAGES = ("the garage on Mill Lane", "a bike shop in town", "the dealer by the ring road", "a mobile mechanic")
DEPARTMENTS = (
    "pharmacy",
    "physics department",
    "data team",
    "payroll",
    "press office",
    "hill-climb squad",
    "night shift",
    "wholesale side",
    "sea-ice group",
    "radiology department",
)
PLACES = _lines(
    """
    the Lombok market
    the Krommerijn pool
    Park Oog in Al
    the Charlottenlund trails
    Winnats Pass
    Hardknott Pass
    the Snake Pass
    Endcliffe Park
    Clevedon Marine Lake
    Gloucester Road
    the harbour in Tromsø
    the Ribeira in Porto
    Hunters Bar roundabout
    the Strines road
    """
)


MARKETS = _lines(
    """
    Lombok market
    Vredenburg market
    Bolhão market
    farmers' market in Tromsø
    Moor market in Sheffield
    Tobacco Factory market
    Saturday market on Gloucester Road
    fish market in Bodø
    Christmas market in Bremen
    """
)


def _year(rng: random.Random, ctx: dict) -> str:
    return str(rng.randrange(1995, 2026))


def _year2(rng: random.Random, ctx: dict) -> str:
    """A year after the sentence's ``year``; without one, a coming year."""
    if "year" in ctx:
        return str(int(ctx["year"]) + rng.randrange(1, 7))
    return str(rng.randrange(2025, 2031))


def _pick(seq):
    return lambda rng, ctx: seq[int(rng.random() * len(seq))]


def _name(rng: random.Random, ctx: dict) -> str:
    return f"{_pick(FIRST_NAMES)(rng, ctx)} {_pick(SURNAMES)(rng, ctx)}"


def _value(rng: random.Random, ctx: dict) -> str:
    value, note = _pick(VALUES)(rng, ctx)
    ctx["vnote"] = note
    return value


def _topic(rng: random.Random, ctx: dict) -> str:
    topic, pro, con = _pick(STANCES)(rng, ctx)
    ctx["pro"], ctx["con"] = pro, con
    return topic


def _job(rng: random.Random, ctx: dict) -> str:
    job, places = _pick(JOBS)(rng, ctx)
    ctx["workplace"] = _pick(places)(rng, ctx)
    return job


def _num(lo: int, hi: int):
    return lambda rng, ctx: str(rng.randrange(lo, hi))


SLOTS = {
    "name": _name,
    "name2": _name,
    "first": _pick(FIRST_NAMES),
    "first2": _pick(FIRST_NAMES),
    "family": _pick(SURNAMES),
    "city": _pick(CITIES),
    "city2": _pick(CITIES),
    "street": _pick(STREETS),
    "place": _pick(PLACES),
    "weekday": _pick(WEEKDAYS),
    "month": _pick(MONTHS),
    "time": _pick(TIMES),
    "mtime": _pick(TIMES[:8]),
    "market": _pick(MARKETS),
    "season": _pick(SEASONS),
    "year": _year,
    "year2": _year2,
    "day": _num(1, 29),
    "age": _num(30, 71),
    "kid_age": _num(4, 17),
    "n": _num(2, 40),
    "minutes": _num(5, 59),
    "hours": _num(5, 12),
    "watts": _num(190, 330),
    "watts2": _num(200, 340),
    "amount": _num(40, 2400),
    "price": _num(3, 9),
    "value": _value,
    "topic": _topic,
    "job": _job,
    "hospital": _pick(HOSPITALS),
    "school": _pick(SCHOOLS),
    "institute": _pick(INSTITUTES),
    "club": _pick(CLUBS),
    "bakery": _pick(BAKERIES),
    "firm": _pick(FIRMS),
    "cafe": _pick(CAFES),
    "mill": _pick(MILLS),
    "university": _pick(UNIVERSITIES),
    "rule": _pick(HOUSE_RULES),
    "work_rule": _pick(WORK_RULES),
    "pref_verb": _pick(PREF_VERBS),
    "pref": _pick(PREF_ITEMS),
    "when": _pick(WHENS),
    "hobby": _pick(HOBBIES),
    "goal": _pick(GOALS),
    "rel": _pick(RELATIONS),
    "agent": _pick(AGENT_NAMES),
    "agent_kind": _pick(AGENT_KINDS),
    "agent_task": _pick(AGENT_TASKS),
    "event": _pick(EVENTS),
    "breed": _pick(BREEDS),
    "pet": _pick(PET_NAMES),
    "sportive": _pick(SPORTIVES),
    "journal": _pick(JOURNALS),
    "loaf": _pick(LOAVES),
    "purchase": _pick(PURCHASES),
    "vehicle": _pick(VEHICLES),
    "garage": _pick(GARAGES),
    "dept": _pick(DEPARTMENTS),
    "pro_verb": _pick(STANCE_VERBS_PRO),
    "con_verb": _pick(STANCE_VERBS_CON),
}
# Filled from an earlier slot of the same sentence (a value's note, a stance's clauses, a job's workplace).
DERIVED = ("vnote", "pro", "con", "workplace")  # from: value, topic, topic, job

TEMPLATES = (
    # values
    "{name} values {value} and {vnote}.",
    "For {name}, {value} comes first, which is why {name} {vnote}.",
    "{first} from {city} cares about {value}, which is why {first} {vnote}.",
    "Everyone at {institute} knows that {name} puts {value} ahead of speed.",
    "{name} said at the {month} staff meeting that {value} is the one thing not up for negotiation.",
    # stances
    "{name} {pro_verb} that {topic} {pro}.",
    "{name} {con_verb} that {topic} {con}.",
    "According to {first} {family}, {topic} {pro}.",
    "{name}, a {job} in {city}, is convinced that {topic} {con}.",
    "At a {month} debate in {city}, {name} argued that {topic} {pro}.",
    "{first} and {first2} argue every {weekday} about whether {topic} {pro}.",
    "{name} used to disagree but has said since {year} that {topic} {con}.",
    "In a letter to the local paper, {name} wrote that {topic} {con}.",
    # household and workplace rules
    "At the {family}s' house in {city}, {rule}.",
    "In the {family} household, {rule}, and the children know it.",
    "{name}'s rule at home is simple: {rule}.",
    "The {family} family agreed in {year} that {rule}.",
    "At {bakery}, {work_rule}.",
    "In {name}'s group at {institute}, {work_rule}.",
    "At {club}, {work_rule}, so {first} plans around it.",
    # jobs at similar places
    "{name} works as a {job} at {workplace}.",
    "{name} has been a {job} at {workplace} since {year}.",
    "{name} left a job in {city} in {year} to become a {job} at {workplace}.",
    "{name} studied at {university} and now works as a {job} in {city}.",
    "{name} has been a {job} for {n} years, starts at {time} most days and works at {workplace}.",
    "{name} grew up in {city}, moved to {city2} in {year} and never moved back.",
    "{name} took over the {dept} in {month} {year} when the previous lead retired.",
    # preferences and hobbies
    "{name} {pref_verb} {pref}, {when}.",
    "{first}'s partner says {first} {pref_verb} {pref} more than anyone they know.",
    "Every {weekday} morning {name} {hobby} in {city}.",
    "{name} {hobby} and has done since moving to {city} in {year}.",
    "{name} always orders the same thing at {cafe} on {weekday} mornings around {time}.",
    "{first} from the {family} family {pref_verb} {pref} and says so to anyone who asks.",
    # goals
    "{name} wants to {goal} by {month} {year2}.",
    "{name} hopes to {goal} before turning {age}.",
    "{name} is quietly saving up to {goal}.",
    "{name}'s plan for next year is to {goal}.",
    "{first} and {first2} have agreed to {goal} together.",
    "After {event}, {name} decided to {goal}.",
    # relationships
    "{name} is the {rel} of {name2}.",
    "{name} is {first2}'s {rel}, and they meet every {weekday} in {city}.",
    "{name}, a {job}, mentors {name2} at {workplace}.",
    "{name} has shared the school run with the {family}s since {year}.",
    "{name} and {name2} met at {university} in {year} and married in {year2}.",
    "{name}'s {rel} lives in {city} and visits every {month}.",
    # other people's agents
    "{agent} is the {agent_kind} that {name} uses to {agent_task}.",
    "The {family} family's {agent_kind}, {agent}, is set up to {agent_task}.",
    "{name} switched off {agent}, the {agent_kind}, after it tried to {agent_task} twice in one day.",
    # history, time and causes
    "{name} moved to {city} in {month} {year}, shortly after {event}.",
    "{event} in {year} led {name} to change how the household budget works.",
    "Since {event} in {year}, {name} keeps a written log of everything.",
    # domain facts about others
    "{name} rode the {sportive} in {hours} hours {minutes} minutes in {year}.",
    "{name}'s FTP went from {watts} to {watts2} watts over the winter, says {first2}.",
    "{name} reviews manuscripts for {journal} about {n} times a year.",
    "{name}'s lab at {institute} puts every model run on Zenodo within a month.",
    "{bakery} on {street} sells {loaf} for {price} pounds on {weekday}s.",
    "{name} keeps the books for {bakery} and files its VAT return every quarter.",
    "{firm} charges {name} {amount} pounds a year to file the shop's accounts.",
    "{name} orders flour from {mill} every {weekday} for the {family} bakery.",
    "{name}'s child, aged {kid_age}, trains at {club} on {weekday} evenings.",
    # everyday facts
    "The bin collection on {street} in {city} moves to {weekday}s from {month}.",
    "The number {n} bus to {place} runs every {minutes} minutes on weekdays.",
    "The library in {city} closes at {time} on Saturdays during {season}.",
    "The swimming pool on {street} is closed for repairs until {month} {year2}.",
    "{name}'s {vehicle} is booked in at {garage} on {weekday} at {time}.",
    "The {market} opens at {mtime} on {weekday}s during {season}.",
    "{name} paid {amount} euros for {purchase} in {month} {year}.",
    "{name}'s dog {pet}, a {breed}, is walked at {time} every day near {place}.",
    "{name} forgot {first2}'s birthday on {day} {month} and sent flowers a day late.",
    "Roadworks on {street} in {city} will close one lane until the end of {month}.",
    "{name} booked a table at {cafe} for {n} people on {weekday} at {time}.",
)

_FORMATTER = string.Formatter()
_AN = re.compile(r"(\s)a (?=[aeiou])")


def _fields(template: str) -> tuple[str, ...]:
    return tuple(f for _, f, _, _ in _FORMATTER.parse(template) if f)


_COMPILED = tuple((t, _fields(t)) for t in TEMPLATES)
_SOURCE = {"vnote": "value", "pro": "topic", "con": "topic", "workplace": "job"}
for _t, _fs in _COMPILED:
    for _f in _fs:
        assert _f in SLOTS or _SOURCE.get(_f) in _fs, (_t, _f)


def _sentence(rng: random.Random) -> str:
    template, fields = _COMPILED[int(rng.random() * len(_COMPILED))]
    ctx: dict[str, str] = {}
    # Slots that set derived values come first so a derived field anywhere in the sentence is filled.
    for f in fields:
        if f in DERIVED or f in ctx:
            continue
        ctx[f] = SLOTS[f](rng, ctx)
    text = _AN.sub(r"\1an ", template.format(**ctx))  # "a accountant" -> "an accountant"
    return text[0].upper() + text[1:]


def competing_memories(n: int, seed: int = 0) -> list[str]:
    """``n`` distinct competing sentences (8 to 30 words), the first ``n`` of the seed's stream."""
    if n < 0:
        raise ValueError("n must be >= 0")
    rng = random.Random(seed)
    seen: set[str] = set()
    out: list[str] = []
    misses = 0
    while len(out) < n:
        text = _sentence(rng)
        words = len(text.split())
        if text in seen or not 8 <= words <= 30:
            misses += 1
            if misses > 50 * n + 10_000:
                raise RuntimeError(f"could not find {n} distinct sentences")
            continue
        seen.add(text)
        out.append(text)
    return out


if __name__ == "__main__":
    import sys
    import time

    count = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    start = time.perf_counter()
    memories = competing_memories(count)
    took = time.perf_counter() - start
    for line in memories[:20]:
        print(line)
    print(f"{len(memories)} memories in {took:.2f}s", file=sys.stderr)
