"""Chemistry, biology and maths questions of benchmarks/data/authored_science.json.

Written and labelled by the rubricjudge developers (MIT, like the project); see
``_science_src`` for the layout.
"""

from __future__ import annotations

from _science_src import THREE, TWO, A, nominal, ordinal

Q: list[dict] = []


def q(qid, question, criteria, penalty, answers, choice=None):
    Q.append(
        dict(
            id=qid,
            question=question,
            criteria=criteria,
            penalty=penalty,
            choice=choice,
            answers=answers,
        )
    )


q(
    "photosynthesis",
    "What does a plant need for photosynthesis, and what does it make?",
    [
        "Names carbon dioxide and water as the raw materials",
        "States that light (energy from the Sun) is needed",
        "States that chlorophyll (in chloroplasts) absorbs the light",
    ],
    "Claims that plants take in oxygen and give out carbon dioxide in photosynthesis",
    [
        A(
            "explicit",
            "MMMU",
            "Photosynthesis uses carbon dioxide from the air and water from the soil. Light energy is absorbed by "
            "chlorophyll in the chloroplasts and used to turn them into glucose, releasing oxygen as a by-product.",
            "Both",
        ),
        A(
            "informal",
            "MMMU",
            "the plant takes in CO2 thru its leaves and water up from the roots, and the green stuff in the "
            "leaves soaks up sunlight to power it. out comes sugar for the plant and O2",
            "Both",
        ),
        A(
            "partial",
            "UMUU",
            "Plants need sunlight to make their food, which is a sugar called glucose.",
            "One",
        ),
        A(
            "wrong",
            "UMUM",
            "In photosynthesis the plant breathes in oxygen and uses sunlight to turn it into carbon dioxide.",
            "Neither",
        ),
        A(
            "partial",
            "MUUU",
            "It needs water and carbon dioxide.",
            "Neither",
        ),
        A(
            "offtopic",
            "UUUU",
            "Cacti store water in their thick stems so they can survive in deserts.",
            "Neither",
        ),
    ],
    choice=ordinal(
        "How many of the two products of photosynthesis (glucose or sugar; oxygen) does the answer correctly "
        "say the plant makes?",
        TWO,
    ),
)

q(
    "perfume_diffusion",
    "Someone opens a bottle of perfume at the front of a classroom. A few minutes later people at the back "
    "can smell it. Explain how.",
    [
        "States that the perfume evaporates into a gas (vapour)",
        "States that the particles move randomly (constantly, in all directions) and collide with air particles",
        "States that the particles spread from a high concentration to a low concentration (diffusion)",
    ],
    "Claims that the perfume particles only move because someone blows or pushes them (they do not move on their own)",
    [
        A(
            "explicit",
            "MMMU",
            "The perfume evaporates and its particles mix with the air. Gas particles are in constant random "
            "motion, colliding with the air particles, so they spread out from where their concentration is high, "
            "near the bottle, to where it is low, at the back. This is diffusion.",
        ),
        A(
            "informal",
            "MMMU",
            "some of the perfume turns into a gas. the tiny bits zoom around all over the place bumping into air, "
            "and gradually spread from the crowded bit by the bottle to where there are hardly any",
        ),
        A("partial", "UUMU", "Diffusion - it goes from high concentration to low concentration."),
        A(
            "wrong",
            "UUUM",
            "Perfume particles can't move by themselves, so the smell only reaches the back when a draught carries it.",
        ),
        A("partial", "MUUU", "The liquid perfume evaporates into the air."),
        A(
            "offtopic",
            "UUUU",
            "Perfume is usually made from a mixture of essential oils and alcohol.",
            None,
        ),
    ],
)

q(
    "balance_water_equation",
    "Hydrogen burns in oxygen to make water. Write a balanced symbol equation and explain why it is "
    "balanced.",
    [
        "Gives the balanced equation 2H2 + O2 -> 2H2O",
        "Explains that there are the same number of each type of atom on both sides",
        "Writes hydrogen and oxygen as diatomic molecules (H2 and O2)",
    ],
    "Balances the equation by changing a formula (subscript) instead of the numbers in front, e.g. H2 + O2 -> H2O2",
    [
        A(
            "explicit",
            "MMMU",
            "2H2 + O2 -> 2H2O. There are 4 hydrogen atoms and 2 oxygen atoms on each side, so atoms are neither "
            "created nor destroyed.",
        ),
        A(
            "informal",
            "MMMU",
            "2 H2 + O2 gives 2 H2O. count em up: left has 4 H and 2 O, right has 4 H and 2 O too so it matches",
        ),
        A("wrong", "UUMM", "H2 + O2 -> H2O2. I changed the water to H2O2 so that it balances."),
        A("partial", "UUMU", "H2 + O2 -> H2O"),
        A("partial", "MUMU", "2H2 + O2 → 2H2O"),
        A("offtopic", "UUUU", "Hydrogen is the lightest element and has one proton."),
    ],
)

q(
    "rusting_nail",
    "An iron nail left outside rusts. What does iron need in order to rust, and what happens to the mass "
    "of the nail?",
    [
        "States that rusting needs both oxygen (air) and water",
        "States that iron reacts (combines) with oxygen to make iron oxide",
        "Explains that the mass goes up because oxygen atoms from the air are added to the nail",
    ],
    "Claims that rusting is a physical change in which no new substance is formed",
    [
        A(
            "explicit",
            "MMMU",
            "Iron needs both oxygen and water to rust. The iron reacts with oxygen to form hydrated iron(III) "
            "oxide, which is rust. The mass of the nail increases because oxygen atoms from the air have combined "
            "with the iron.",
            "It increases",
        ),
        A(
            "informal",
            "MMMU",
            "it needs air and wet. the iron joins up with oxygen and turns into iron oxide, so the nail gets "
            "heavier since it's grabbed extra atoms out of the air",
            "It increases",
        ),
        A(
            "wrong",
            "UUUM",
            "Rust is just iron that has changed colour, no new substance is made, so the mass stays the same.",
            "It stays the same",
        ),
        A(
            "wrong",
            "UUUU",
            "Rusting eats away the iron, so the nail ends up lighter.",
            "It decreases",
        ),
        A(
            "partial",
            "MUUU",
            "It needs water and oxygen. That's why painting it stops rusting.",
            "Not stated",
        ),
        A(
            "offtopic",
            "UUUU",
            "Iron is magnetic, so it can be separated from other metals with a magnet.",
            "Not stated",
        ),
    ],
    choice=nominal(
        "What does the answer say happens to the mass of the nail?",
        [
            ("It increases", 1.0),
            ("It stays the same", 0.0),
            ("It decreases", 0.0),
            ("Not stated", 0.0),
        ],
    ),
)

q(
    "neutralisation",
    "What happens when hydrochloric acid is added to sodium hydroxide solution in the right amounts?",
    [
        "States that the acid and alkali neutralise each other",
        "Names the products as a salt (sodium chloride) and water",
        "States that the final solution has a pH of 7",
    ],
    "Contains a factual error",
    [
        A(
            "explicit",
            "MMMU",
            "It is a neutralisation reaction: HCl + NaOH -> NaCl + H2O. The products are sodium chloride, a "
            "salt, and water, and the solution ends up neutral with a pH of 7.",
        ),
        A(
            "informal",
            "MMMU",
            "they cancel each other out and you just get salty water - actual table salt (NaCl) and H2O. the pH "
            "ends up at 7, bang in the middle",
        ),
        A("partial", "MUUU", "The acid and the alkali neutralise each other."),
        A(
            "wrong",
            "UUUM",
            "They react to make chlorine gas and hydrogen, and the solution becomes strongly acidic.",
        ),
        A("partial", "UMMU", "You get sodium chloride and water, and the pH is 7."),
        A(
            "offtopic",
            "UUUU",
            "Sodium hydroxide is also called caustic soda and is used in drain cleaners.",
        ),
    ],
)

q(
    "salt_dissolves",
    "A student dissolves 10 g of salt in 100 g of water. The salt seems to disappear. What is the mass of "
    "the solution, and where has the salt gone?",
    [
        "States that the mass of the solution is 110 g",
        "States that the salt is still there, spread out among the water particles",
        "States that mass is conserved when something dissolves",
    ],
    "Claims that the salt no longer exists (is destroyed or turns into water)",
    [
        A(
            "explicit",
            "MMMU",
            "The solution has a mass of 110 g. The salt has not disappeared: it has broken up into tiny particles "
            "spread evenly between the water particles. Mass is conserved when something dissolves, so nothing "
            "is lost.",
        ),
        A(
            "informal",
            "MMMU",
            "110 grams. the salt is all still in there, just split up into bits too small to see mixed in with "
            "the water. you dont lose any mass when stuff dissolves",
        ),
        A(
            "wrong",
            "UUUM",
            "It is 100 g because the salt has dissolved and stopped existing, it turned into water.",
        ),
        A("partial", "MUUU", "110 g"),
        A(
            "partial",
            "UMUU",
            "The salt is still in the water, you just can't see it because it's spread out. You could taste it.",
        ),
        A(
            "offtopic",
            "UUUU",
            "Salt is used on icy roads because it lowers the freezing point of water.",
        ),
    ],
)

q(
    "enzyme_hot",
    "Explain why an enzyme stops working when it is heated to 70 C.",
    [
        "States that the enzyme is denatured",
        "States that the shape of the active site changes",
        "Explains that the substrate can no longer fit (bind to) the active site",
    ],
    "Claims that the enzyme is killed (as if it were alive)",
    [
        A(
            "explicit",
            "MMMU",
            "At 70 C the enzyme is denatured: the bonds holding its structure break and the shape of its active "
            "site changes. The substrate no longer fits the active site, so the reaction cannot be catalysed.",
        ),
        A(
            "informal",
            "MMMU",
            "the heat wrecks the enzyme's shape (denatures it), including the bit where the substrate is meant to "
            "slot in. so the substrate doesnt fit any more, like a key that won't go in a bent lock",
        ),
        A("wrong", "UUUM", "The enzyme gets killed by the heat, like bacteria do."),
        A("partial", "MUUU", "It has been denatured."),
        A(
            "partial",
            "UMMU",
            "The active site changes shape so the substrate can't fit into it.",
        ),
        A(
            "offtopic",
            "UUUU",
            "Enzymes in biological washing powders break down stains such as fats and proteins.",
        ),
    ],
)

q(
    "antibiotic_resistance",
    "Explain how a population of bacteria can become resistant to an antibiotic.",
    [
        "States that some bacteria already carry a mutation (variation) that makes them resistant",
        "States that the antibiotic kills the non-resistant bacteria while the resistant ones survive",
        "States that the survivors reproduce and pass the resistance gene on, so resistant bacteria become common",
    ],
    "Claims that individual bacteria become resistant because they need to, try to, or get used to the antibiotic",
    [
        A(
            "explicit",
            "MMMU",
            "By random mutation some bacteria already have a gene that makes them resistant. When the antibiotic "
            "is used it kills the bacteria that are not resistant, but the resistant ones survive. They reproduce "
            "and pass the resistance gene to their offspring, so the resistant strain becomes common. This is "
            "natural selection.",
            "All three",
        ),
        A(
            "informal",
            "MMMU",
            "a few of the bacteria are randomly different and the drug cant touch them. the drug wipes out all the "
            "normal ones, the tough ones are left, they multiply and their babies are tough too, so soon theyre all "
            "tough",
            "All three",
        ),
        A(
            "wrong",
            "UUUM",
            "The bacteria get used to the antibiotic after being exposed to it, so they build up resistance and "
            "teach their offspring.",
            "None",
        ),
        A(
            "partial",
            "UMUU",
            "The antibiotic kills the bacteria that are not resistant and the resistant ones survive.",
            "One or two",
        ),
        A(
            "partial",
            "MMUU",
            "Some of them have a mutation that means the antibiotic doesn't work on them, so they don't die when "
            "the others do.",
            "One or two",
        ),
        A(
            "offtopic",
            "UUUU",
            "Antibiotics do not work against viruses such as the common cold.",
            "None",
        ),
    ],
    choice=ordinal(
        "How many of the three steps of natural selection (variation already present; resistant bacteria survive; "
        "survivors reproduce and pass on the gene) does the answer describe?",
        THREE,
    ),
)

q(
    "left_ventricle",
    "Why is the wall of the left ventricle of the heart thicker than the wall of the right ventricle?",
    [
        "States that the left ventricle pumps blood to the whole body",
        "States that the right ventricle pumps blood only to the lungs",
        "Explains that the left ventricle must produce a higher pressure (more force), which needs more muscle",
    ],
    "Contains a factual error",
    [
        A(
            "explicit",
            "MMMU",
            "The left ventricle pumps blood out through the aorta to the whole body, while the right ventricle "
            "only pumps blood to the nearby lungs. The left side therefore has to produce a much higher pressure, "
            "so it needs a thicker, more muscular wall.",
        ),
        A(
            "informal",
            "MMMU",
            "the left one has to push blood all round your body, right down to your toes. the right one only "
            "sends it next door to the lungs. so the left needs way more muscle to squeeze harder",
        ),
        A(
            "wrong",
            "UUUM",
            "The left ventricle is thicker because it pumps blood to the lungs, which are far away from the heart.",
        ),
        A("partial", "MUUU", "Because the left ventricle sends blood all around the body."),
        A(
            "partial",
            "UUMU",
            "It needs more muscle so that it can pump blood at a higher pressure.",
        ),
        A("offtopic", "UUUU", "The heart has four chambers: two atria and two ventricles."),
    ],
)

q(
    "water_cycle",
    "Describe how water from the sea can end up falling as rain on a mountain.",
    [
        "States that the Sun heats the sea and water evaporates into water vapour",
        "States that the water vapour rises, cools and condenses into droplets that form clouds",
        "States that the droplets join together and fall as rain (precipitation)",
    ],
    "Contains a factual error",
    [
        A(
            "explicit",
            "MMMU",
            "The Sun heats the sea, and water evaporates to form water vapour. The vapour rises, cools and "
            "condenses into tiny droplets, which form clouds. Winds carry the clouds over the mountain, where the "
            "droplets join into bigger drops that fall as precipitation (rain).",
            "All three",
        ),
        A(
            "informal",
            "MMMU",
            "sun warms up the sea and some of it turns into vapour and goes up. higher up its colder so it turns "
            "back into little drops = clouds. the drops clump together till theyre too heavy and down comes the "
            "rain",
            "All three",
        ),
        A(
            "wrong",
            "UUUM",
            "Clouds soak up sea water like a sponge as they pass over the ocean, and the mountain squeezes the "
            "water back out of them.",
            "None",
        ),
        A(
            "partial",
            "MUUU",
            "Water evaporates from the sea because of the Sun's heat.",
            "One or two",
        ),
        A(
            "partial",
            "MMUU",
            "The sun makes seawater evaporate, then the vapour goes up into the sky, cools and condenses to make "
            "clouds.",
            "One or two",
        ),
        A("offtopic", "UUUU", "About 97% of Earth's water is salt water in the oceans.", "None"),
    ],
    choice=ordinal(
        "How many of the three processes (evaporation, condensation, precipitation) does the answer name or "
        "describe?",
        THREE,
    ),
)

q(
    "vaccination",
    "How does a vaccine protect you against a disease?",
    [
        "States that the vaccine contains a dead, weakened or harmless form (or part) of the pathogen",
        "States that the body (its white blood cells) makes antibodies against it",
        "States that memory cells remain, so a later infection is met with a faster, larger response",
    ],
    "Claims that the vaccine itself kills the pathogens (like a medicine)",
    [
        A(
            "explicit",
            "MMMU",
            "A vaccine contains a dead or weakened form of the pathogen, or a harmless part of it. White blood "
            "cells recognise its antigens and produce antibodies against it. Memory cells stay in the blood, so "
            "if the real pathogen infects you later, antibodies are made much faster and in larger amounts, "
            "before you get ill.",
            "Both",
        ),
        A(
            "informal",
            "MMMU",
            "you get injected with a wimpy or dead version of the germ. your white blood cells learn to make the "
            "right antibodies for it, and some of them remember it for years, so next time they smash the real "
            "germ quick before it makes you sick",
            "Both",
        ),
        A(
            "wrong",
            "UUUM",
            "The vaccine is a medicine that goes round your blood and kills the germs if they get in.",
            "Neither",
        ),
        A(
            "partial",
            "MMUU",
            "It puts a weak version of the virus in you and your body makes antibodies.",
            "One",
        ),
        A(
            "partial",
            "UUMU",
            "Memory cells stay in your body, so if you catch it later you fight it off much faster.",
            "One",
        ),
        A(
            "offtopic",
            "UUUU",
            "Edward Jenner developed the first vaccine, against smallpox.",
            "Neither",
        ),
    ],
    choice=ordinal(
        "How many of the two parts of the immune response (making antibodies; keeping a memory of the pathogen, "
        "e.g. memory cells) does the answer describe?",
        TWO,
    ),
)

q(
    "food_chain_energy",
    "In a food chain, grass -> rabbit -> fox, why is there much less energy available to the fox than to "
    "the rabbit?",
    [
        "States that only a small fraction (about 10%) of the energy is passed on to the next level",
        "States that energy is lost (transferred to the surroundings) as heat from respiration",
        "Mentions another loss: energy in parts not eaten or not digested (waste, faeces, bones, fur) or used for movement",
    ],
    "Claims that energy is destroyed along the food chain",
    [
        A(
            "explicit",
            "MMMU",
            "Only about 10% of the energy in the rabbits is passed on to the fox. Much of the energy is "
            "transferred to the surroundings as heat from the rabbits' respiration and used for movement, and "
            "some is in parts the fox does not eat or cannot digest, such as bones and fur.",
        ),
        A(
            "informal",
            "MMMU",
            "the rabbit burns most of its energy just staying warm and hopping about (respiring gives off heat), "
            "and the fox doesnt eat the fur and bones. so only about a tenth makes it to the fox",
        ),
        A("wrong", "UUUM", "The energy gets destroyed each time one animal eats another."),
        A("partial", "MUUU", "Only about 10 percent passes on each time."),
        A(
            "partial",
            "UMUU",
            "Rabbits lose a lot of energy as heat when they respire.",
        ),
        A("offtopic", "UUUU", "Foxes are omnivores and also eat berries and insects."),
    ],
)

q(
    "exercise_breathing",
    "Why do you breathe faster and more deeply during exercise?",
    [
        "States that the muscles need more energy, released by (aerobic) respiration",
        "States that more oxygen needs to be taken in (delivered to the muscles)",
        "States that more carbon dioxide must be removed",
    ],
    "Claims that respiration produces oxygen",
    [
        A(
            "explicit",
            "MMMU",
            "During exercise the muscles contract more, so they need more energy, which is released by aerobic "
            "respiration. Breathing faster and deeper takes in more oxygen for respiration and removes the extra "
            "carbon dioxide it produces.",
        ),
        A(
            "informal",
            "MMMU",
            "ur muscles are working harder so they need more energy, and they get that from respiring. so u need "
            "loads more O2 coming in and u have to get rid of all the CO2 they make",
        ),
        A("partial", "UMUU", "To get more oxygen into your body."),
        A(
            "wrong",
            "UUUM",
            "Your muscles make oxygen when they respire, so you have to breathe faster to get rid of the extra oxygen.",
        ),
        A("partial", "MMUU", "Muscles respire faster to get energy, and this needs more oxygen."),
        A("offtopic", "UUUU", "Regular exercise strengthens the heart muscle."),
    ],
)

q(
    "line_slope",
    "Find the equation of the straight line through the points (1, 2) and (3, 8).",
    [
        "Calculates the gradient (slope) as 3, using change in y over change in x",
        "Shows how the y-intercept is found (substituting a point to get -1)",
        "Gives the final equation y = 3x - 1",
    ],
    "Calculates the gradient as change in x over change in y (getting 1/3)",
    [
        A(
            "explicit",
            "MMMU",
            "Gradient m = (8 - 2) / (3 - 1) = 6 / 2 = 3. Substituting (1, 2): 2 = 3(1) + c, so c = -1. The line "
            "is y = 3x - 1.",
        ),
        A(
            "informal",
            "MMMU",
            "going from x=1 to x=3 (2 across) y goes up 6, so it climbs 3 for every 1 across. then 2 = 3 + c so "
            "c is minus 1. answer y = 3x - 1",
        ),
        A("wrong", "UUUM", "m = (3 - 1)/(8 - 2) = 1/3, so y = x/3 + 5/3."),
        A("partial", "MUUU", "slope = 6/2 = 3 so y = 3x + 2"),
        A("partial", "UUMU", "y = 3x - 1"),
        A("offtopic", "UUUU", "Parallel lines have the same gradient."),
    ],
)

q(
    "two_dice_seven",
    "Two fair dice are rolled. What is the probability that the total is 7? Explain.",
    [
        "States that there are 36 equally likely outcomes",
        "Counts 6 outcomes that total 7",
        "Gives the probability as 1/6 (6/36)",
    ],
    "Claims that every total from 2 to 12 is equally likely",
    [
        A(
            "explicit",
            "MMMU",
            "There are 6 x 6 = 36 equally likely outcomes. Six of them total 7: (1,6), (2,5), (3,4), (4,3), "
            "(5,2), (6,1). So the probability is 6/36 = 1/6.",
            "1/6",
        ),
        A(
            "informal",
            "MMMU",
            "36 combos altogether and you can make 7 six ways (1+6, 6+1, 2+5, 5+2, 3+4, 4+3) so its 6 out of 36, "
            "one in six",
            "1/6",
        ),
        A(
            "wrong",
            "UUUM",
            "There are 11 possible totals, 2 to 12, and each is equally likely, so it's 1/11.",
            "Another value",
        ),
        A("partial", "UUMU", "1/6", "1/6"),
        A(
            "partial",
            "MUUU",
            "There are 36 outcomes and 3 of them make 7 (1+6, 2+5, 3+4), so it's 3/36 = 1/12.",
            "Another value",
        ),
        A("offtopic", "UUUU", "Opposite faces of a standard die add up to 7.", "None given"),
    ],
    choice=nominal(
        "What probability does the answer give?",
        [("1/6", 1.0), ("Another value", 0.0), ("None given", 0.0)],
    ),
)

q(
    "discount_then_rise",
    "A jacket costs 80 pounds. Its price is cut by 20%, and later the new price is raised by 20%. What is "
    "the final price? Explain.",
    [
        "Finds the reduced price as 64 pounds",
        "Gives the final price as 76.80 pounds",
        "Explains that the 20% rise is taken of a smaller amount, so it does not undo the 20% cut",
    ],
    "Claims that the price returns to 80 pounds",
    [
        A(
            "explicit",
            "MMMU",
            "After the cut the price is 80 x 0.8 = 64 pounds. Raising 64 by 20% gives 64 x 1.2 = 76.80 pounds. "
            "The final price is lower than 80 because the 20% rise is a percentage of a smaller amount than the "
            "20% cut was.",
            "76.80 pounds",
        ),
        A(
            "informal",
            "MMMU",
            "20% off 80 is 16 off so it's 64. then 20% of 64 is only 12.80 so it goes up to 76.80 - you dont get "
            "back to 80 cos the second 20% is of a smaller number",
            "76.80 pounds",
        ),
        A(
            "wrong",
            "UUUM",
            "It goes down 20% and then back up 20%, so it's back to 80 pounds.",
            "80 pounds",
        ),
        A("partial", "MUUU", "After the discount it costs 64 pounds.", "None given"),
        A("partial", "UMUU", "76.80", "76.80 pounds"),
        A("offtopic", "UUUU", "VAT in the UK is usually charged at 20%.", "None given"),
    ],
    choice=nominal(
        "What final price does the answer give?",
        [("76.80 pounds", 1.0), ("80 pounds", 0.0), ("Another value", 0.0), ("None given", 0.0)],
    ),
)
